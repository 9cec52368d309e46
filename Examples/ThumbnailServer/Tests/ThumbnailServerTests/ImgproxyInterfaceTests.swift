import AsyncWebImage
import AsyncWebImageAllFormats
import AsyncWebImageWebP
import Foundation
import HTTPTypes
import Testing

/// The imgproxy-style interface and the encoded-result cache, against a real
/// server process and a real loopback origin. Sizes and pixels of answers
/// are read by ImageMagick.
@Suite(.serialized)
struct ImgproxyInterfaceTests {
    /// Width and height of an encoded image, by ImageMagick's `identify`.
    static func size(of data: Data, in harness: ServerHarness) throws -> String {
        let file = harness.root.appendingPathComponent("identify-\(UUID().uuidString)")
        try data.write(to: file)
        let text = String(decoding: try ServerHarness.run("/usr/bin/env", ["identify", "-format", "%wx%h", file.path], requiringSuccess: true), as: UTF8.self)
        return text
    }

    /// RGB bytes of an encoded image, by ImageMagick's `convert`.
    static func rgb(of data: Data, in harness: ServerHarness) throws -> [UInt8] {
        let file = harness.root.appendingPathComponent("rgb-\(UUID().uuidString)")
        try data.write(to: file)
        return Array(try ServerHarness.run("/usr/bin/env", ["convert", file.path, "-depth", "8", "rgb:-"], requiringSuccess: true))
    }

    static func started(_ arguments: [String] = ["--allow-unsigned"]) throws -> ServerHarness {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 400, height: 300, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startServer(arguments)
        return harness
    }

    @Test("a wrong signature is refused with 403; the right one answers 200 with the asked size")
    func signatures() throws {
        let harness = try Self.started([])
        let path = "/rs:fit:200:200/plain/\(harness.origin)/photo.jpg@png"
        let wrong = try harness.get("/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" + path)
        #expect(wrong.status == 403)
        // Without --allow-unsigned, "insecure" is no signature either.
        #expect(try harness.get("/insecure" + path).status == 403)
        // A right signature over another path does not carry over.
        let other = try ServerHarness.signature(of: "/rs:fit:100:100/plain/\(harness.origin)/photo.jpg@png")
        #expect(try harness.get("/" + other + path).status == 403)
        let signed = try harness.get("/" + (try ServerHarness.signature(of: path)) + path)
        #expect(signed.status == 200)
        #expect(signed.headers[.contentType] == "image/png")
        #expect(try Self.size(of: signed.body, in: harness) == "200x150")
        // The base64url source form, signed the same way.
        let encoded = Data("\(harness.origin)/photo.jpg".utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        let basePath = "/rs:force:64:32/\(encoded).png"
        let base64 = try harness.get("/" + (try ServerHarness.signature(of: basePath)) + basePath)
        #expect(base64.status == 200)
        #expect(try Self.size(of: base64.body, in: harness) == "64x32")
        #expect(harness.originRequests >= 1)
    }

    @Test("each resizing type, 0 sides and dpr give imgproxy's output sizes (400×300 source)", arguments: [
        ("rs:fit:200:200", "200x150"),
        ("rs:fit:0:100", "133x100"),
        ("w:200", "200x150"),
        ("h:150", "200x150"),
        ("rs:fill:200:200", "200x200"),
        ("rs:fill:800:400", "400x300"),       // never enlarged: the whole image
        ("rs:fill-down:200:200", "200x200"),
        ("rs:fill-down:800:400", "400x200"),  // too small: cropped to the box's 2:1
        ("rs:force:100:37", "100x37"),
        ("rs:force:100:0", "100x75"),
        ("rs:auto:200:100", "200x100"),       // both landscape: fill
        ("rs:auto:100:200", "100x75"),        // portrait box: fit
        ("rs:fit:100:100/dpr:2", "200x150"),
        ("rs:fit:100:100/dpr:0.001", "1x1"),  // a side asked for never rounds to 0 (unconstrained: the whole image)
        ("w:100/dpr:0.004", "1x1"),
        ("rs:fit:1000:1000", "400x300"),
    ])
    func resizingTypes(options: String, expected: String) throws {
        let harness = try Self.started()
        let reply = try harness.get("/insecure/\(options)/plain/\(harness.origin)/photo.jpg@png")
        #expect(reply.status == 200)
        #expect(try Self.size(of: reply.body, in: harness) == expected)
    }

    @Test("gravity picks the region: sm finds the detailed patch wherever it is, the edges are where they say")
    func gravity() throws {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.patch(width: 300, height: 100, columns: 200..<300), as: "right.png")
        try harness.serve(try TestImages.patch(width: 300, height: 100, columns: 0..<100), as: "left.png")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned"])
        func crop(_ gravity: String, _ name: String) throws -> [UInt8] {
            let reply = try harness.get("/insecure/rs:fill:100:100/g:\(gravity)/plain/\(harness.origin)/\(name)@png")
            #expect(reply.status == 200)
            #expect(try Self.size(of: reply.body, in: harness) == "100x100")
            return try Self.rgb(of: reply.body, in: harness)
        }
        func isFlat(_ pixels: [UInt8]) -> Bool { !pixels.isEmpty && pixels.allSatisfy { $0 == 128 } }
        let rightEast = try crop("ea", "right.png")
        let rightWest = try crop("we", "right.png")
        let rightCentre = try crop("ce", "right.png")
        #expect(!isFlat(rightEast))
        #expect(isFlat(rightWest))
        #expect(isFlat(rightCentre))
        #expect(try crop("sm", "right.png") == rightEast)
        let leftWest = try crop("we", "left.png")
        #expect(!isFlat(leftWest))
        #expect(isFlat(try crop("ea", "left.png")))
        #expect(try crop("sm", "left.png") == leftWest)
        #expect(try crop("nowe", "left.png") == leftWest)
    }

    @Test("Accept negotiates AVIF, then WebP, then JPEG, with Vary: Accept; an extension wins without Vary")
    func negotiation() throws {
        let harness = try Self.started()
        let path = "/insecure/rs:fit:120:120/plain/\(harness.origin)/photo.jpg"
        let avif = try harness.get(path, headers: [.accept: "image/avif,image/webp,*/*"])
        #expect(avif.status == 200)
        #expect(avif.headers[.contentType] == "image/avif")
        #expect(avif.headers[.vary] == "Accept")
        #expect(ImageFormat.detect(avif.body) == .avif)
        #expect(try Self.size(of: avif.body, in: harness) == "120x90")
        let webp = try harness.get(path, headers: [.accept: "image/avif;q=0,image/webp"])
        #expect(webp.headers[.contentType] == "image/webp")
        #expect(ImageFormat.detect(webp.body) == .webp)
        let jpeg = try harness.get(path, headers: [.accept: "*/*"])
        #expect(jpeg.headers[.contentType] == "image/jpeg")
        #expect(ImageFormat.detect(jpeg.body) == .jpeg)
        #expect(jpeg.headers[.vary] == "Accept")
        let fixed = try harness.get(path + "@png", headers: [.accept: "image/avif"])
        #expect(fixed.headers[.contentType] == "image/png")
        #expect(fixed.headers[.vary] == nil)
        // The query form names WebP and AVIF too.
        for (name, format) in [("webp", ImageFormat.webp), ("avif", .avif)] {
            let reply = try harness.get("/thumbnail?url=\(harness.origin)/photo.jpg&width=60&height=60&format=\(name)&quality=50")
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == format.mimeType)
            #expect(ImageFormat.detect(reply.body) == format)
            #expect(try Self.size(of: reply.body, in: harness) == "60x45")
        }
    }

    @Test("an animated GIF stays animated as WebP (asked for, or negotiated), every frame resized, durations kept; JPEG gets its first frame")
    func animatedSource() throws {
        // Given an origin serving a 3-frame 40×30 GIF (red, lime, blue, 200 ms each, looping) made by ImageMagick
        let harness = try ServerHarness()
        try harness.serveAnimatedGIF(as: "anim.gif")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned"])
        let path = "/insecure/rs:fit:20:20/plain/\(harness.origin)/anim.gif"

        // When it is asked for as WebP, and negotiated with a browser's Accept
        let asked = try harness.get(path + "@webp")
        let negotiated = try harness.get(path, headers: [.accept: "image/avif,image/webp,*/*"])
        let still = try harness.get(path + "@jpg")

        // Then both answers are animated WebPs of 3 frames at 20×15 with the
        // source's colours and durations (webpmux and our decoder agree)
        for reply in [asked, negotiated] {
            #expect(reply.status == 200)
            #expect(reply.headers[.contentType] == "image/webp")
            let file = harness.root.appendingPathComponent("anim-\(UUID().uuidString).webp")
            try reply.body.write(to: file)
            let info = String(decoding: try ServerHarness.run("/usr/bin/env", ["webpmux", "-info", file.path], requiringSuccess: true), as: UTF8.self)
            #expect(info.contains("Number of frames: 3"), "\(info)")
            #expect(info.contains("Canvas size: 20 x 15"), "\(info)")
            let animation = try #require(try ImageCoderRegistry.builtIn.adding(WebPCoder()).decode(reply.body).animation)
            #expect(animation.frameDurations == [.milliseconds(200), .milliseconds(200), .milliseconds(200)])
            var colours: [[UInt8]] = []
            for index in 0..<animation.frameCount { colours.append(Array(try #require(try animation.decodeFrame(at: index).pixel(x: 10, y: 7)).prefix(3))) }
            #expect(colours.count == 3)
            for (colour, expected) in zip(colours, [[255, 0, 0], [0, 255, 0], [0, 0, 255]] as [[Int]]) {
                #expect(zip(colour, expected).allSatisfy { abs(Int($0) - $1) <= 12 }, "\(colour) vs \(expected)")
            }
        }
        #expect(negotiated.headers[.vary] == "Accept")
        // And a JPEG answer is the first frame
        #expect(still.headers[.contentType] == "image/jpeg")
        let rgb = try Self.rgb(of: still.body, in: harness)
        #expect(rgb.count == 20 * 15 * 3)
        #expect(rgb[0] > 200 && rgb[1] < 40 && rgb[2] < 40)
    }

    @Test("a result hit performs 0 decodes and the origin sees no second request; the disk tier survives a restart")
    func resultHits() throws {
        let harness = try Self.started(["--allow-unsigned", "--cache-dir", "CACHE"].map {
            $0 == "CACHE" ? FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-results-\(getpid())").path : $0
        })
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-results-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = "/insecure/rs:fill:90:90/g:sm/plain/\(harness.origin)/photo.jpg@webp"
        let first = try harness.get(path)
        #expect(first.status == 200)
        #expect(first.headers[.xCache] == "miss")
        let decodesAfterMiss = try harness.decodes()
        let originAfterMiss = harness.originRequests
        #expect(decodesAfterMiss == 1)
        #expect(originAfterMiss == 1)
        let second = try harness.get(path)
        #expect(second.headers[.xCache] == "hit-result-memory")
        #expect(second.body == first.body)
        #expect(second.headers[.eTag] == first.headers[.eTag])
        #expect(try harness.decodes() == decodesAfterMiss)
        #expect(harness.originRequests == originAfterMiss)
        // The query form has its own results, cached the same way; its
        // original comes from DIR/originals, where the first request left it.
        let query = "/thumbnail?url=\(harness.origin)/photo.jpg&width=50&height=50"
        #expect(try harness.get(query).headers[.xCache] == "hit-disk")
        let decodesAfterQuery = try harness.decodes()
        #expect(decodesAfterQuery == decodesAfterMiss + 1)
        #expect(harness.originRequests == originAfterMiss)
        #expect(try harness.get(query).headers[.xCache] == "hit-result-memory")
        #expect(try harness.decodes() == decodesAfterQuery)
        // A new process with the same --cache-dir: DIR/results answers, nothing decoded.
        try awaitDiskWrite(directory.appendingPathComponent("results"))
        harness.stopServer()
        try harness.startServer(["--allow-unsigned", "--cache-dir", directory.path])
        let afterRestart = try harness.get(path)
        #expect(afterRestart.headers[.xCache] == "hit-result-disk")
        #expect(afterRestart.body == first.body)
        #expect(try harness.decodes() == 0)
        #expect(harness.originRequests == originAfterMiss)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("originals").path))
    }

    /// Waits (at most 10 s) until the background write left a file in `directory`.
    private func awaitDiskWrite(_ directory: URL) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let files = (try? FileManager.default.subpathsOfDirectory(atPath: directory.path)) ?? []
            if files.count >= 2 { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    @Test("ETag comes from the bytes; If-None-Match with it gives 304, another tag 200")
    func entityTags() throws {
        let harness = try Self.started()
        let path = "/insecure/rs:fit:80:80/plain/\(harness.origin)/photo.jpg@jpg"
        let first = try harness.get(path)
        let tag = try #require(first.headers[.eTag])
        let notModified = try harness.get(path, headers: [.ifNoneMatch: tag])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(try harness.get(path, headers: [.ifNoneMatch: "\"other\""]).status == 200)
        // Another quality is other bytes, so another tag.
        let other = try harness.get("/insecure/rs:fit:80:80/q:30/plain/\(harness.origin)/photo.jpg@jpg")
        #expect(other.body != first.body)
        #expect(other.headers[.eTag] != tag)
    }

    @Test("two servers sharing a Redis: the second one's request needs no origin fetch, and a repeated result no decode")
    func fleetSharing() throws {
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 400, height: 300, as: .jpeg), as: "photo.jpg")
        try harness.startOrigin()
        try harness.startRedis()
        let redis = ["--allow-unsigned", "--redis", "127.0.0.1:\(harness.redisPort)"]
        try harness.startServer(redis + ["--cache-dir", harness.root.appendingPathComponent("node1").path])
        let fill = "/insecure/rs:fill:100:100/plain/\(harness.origin)/photo.jpg@webp"
        let first = try harness.get(fill)
        #expect(first.headers[.xCache] == "miss")
        #expect(harness.originRequests == 1)
        // The result's shared write runs in the background: wait (at most
        // 5 s) until Redis holds two values, the original and the result.
        for _ in 0..<100 where try harness.redisKeyCount() < 2 { Thread.sleep(forTimeInterval: 0.05) }
        #expect(try harness.redisKeyCount() == 2)
        try harness.startAnotherServer(redis + ["--cache-dir", harness.root.appendingPathComponent("node2").path])
        let second = try harness.get(fill)
        #expect(second.headers[.xCache] == "hit-result-redis")
        #expect(second.body == first.body)
        #expect(try harness.decodes() == 0)
        // Another transform of the same image: the original from Redis, decoded here, no origin request.
        let fit = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/photo.jpg@png")
        #expect(fit.status == 200)
        #expect(fit.headers[.xCache] == "hit-shared")
        #expect(try Self.size(of: fit.body, in: harness) == "50x38")
        #expect(try harness.decodes() == 1)
        #expect(harness.originRequests == 1)
    }
}
