import AsyncWebImage
import AsyncWebImageAllFormats
import AsyncWebImageWebP
import Foundation
import Testing
@testable import thumbnail_server

/// `--max-animation-pixels`: an animation's frames × canvas over the limit
/// is a 413 before any frame is decoded; at the limit it is served.
@Suite(.serialized)
struct AnimationPixelLimitTests {
    @Test("the flag and its environment variable set the limit; 50 MP by default; 0 or a non-number is a usage error")
    func options() async throws {
        #expect(try await ServerOptions.parsed([], environment: [:]).maxAnimationPixels == 50_000_000)
        #expect(try await ServerOptions.parsed([], environment: ["THUMBNAIL_MAX_ANIMATION_PIXELS": "1000"]).maxAnimationPixels == 1000)
        #expect(try await ServerOptions.parsed(["--max-animation-pixels", "5"], environment: ["THUMBNAIL_MAX_ANIMATION_PIXELS": "1000"])
            .maxAnimationPixels == 5)
        await #expect(throws: UsageError.self) { try await ServerOptions.parsed(["--max-animation-pixels", "0"], environment: [:]) }
        await #expect(throws: UsageError.self) { try await ServerOptions.parsed(["--max-animation-pixels", "1e9"], environment: [:]) }
    }

    @Test("a 3-frame 40×30 GIF (3,600 pixels over its frames): an animated answer is a 413 with a limit of 3,599, a still answer (JPEG, or the query form) its first frame; served animated at 3,600")
    func limit() throws {
        let harness = try ServerHarness()
        try harness.serveAnimatedGIF(as: "anim.gif")
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned", "--max-animation-pixels", "3599", "--cache-mib", "0"])
        let path = "/insecure/rs:fit:20:20/plain/\(harness.origin)/anim.gif"
        let refused = try harness.get(path + "@webp")
        #expect(refused.status == 413)
        #expect(String(decoding: refused.body, as: UTF8.self) == "too large: 3600 animationPixels, limit 3599\n")
        // A still answer is the first frame: the animation limit does not apply.
        for still in [path + "@jpg", "/thumbnail?url=\(harness.origin)/anim.gif&width=20&height=20&format=jpeg"] {
            let reply = try harness.get(still)
            #expect(reply.status == 200, "\(still)")
            let image = try ImageCoderRegistry.allFormats.decode(reply.body)
            let centre = image.pixel(x: image.size.width / 2, y: image.size.height / 2) ?? []
            #expect(centre.count >= 3 && centre[0] > 200 && centre[1] < 60 && centre[2] < 60, "\(still): \(centre)")
        }

        harness.stopServer()
        try harness.startServer(["--allow-unsigned", "--max-animation-pixels", "3600"])
        let served = try harness.get(path + "@webp")
        #expect(served.status == 200)
        #expect(served.headers[.contentType] == "image/webp")
        #expect(try ImageCoderRegistry.builtIn.adding(WebPCoder()).decode(served.body).animation?.frameCount == 3)
    }
}
