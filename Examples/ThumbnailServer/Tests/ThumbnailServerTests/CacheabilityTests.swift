import AsyncWebImage
import Foundation
import HTTPTypes
import Testing

/// A thumbnail inherits its original's cacheability, against a real server
/// process with a disk tier and a loopback origin that answers with the
/// Cache-Control each test gives it.
@Suite(.serialized)
struct CacheabilityTests {
    /// Regular files under `directory` (the disk tier's entries).
    static func files(in directory: URL) -> Int {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        return (enumerator?.allObjects as? [URL] ?? []).filter {
            (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
        }.count
    }

    @Test("private or no-store originals: never in results/, answered no-store / private, made again each time; a public one is kept")
    func privateOriginals() throws {
        // Given an origin serving the same photo as private+no-store, private
        // for 10 minutes, no-cache, and public for a minute
        let harness = try ServerHarness()
        let photo = try TestImages.gradient(width: 200, height: 100, as: .jpeg)
        try harness.serve(photo, as: "nostore.jpg", fields: ["Cache-Control: private, no-store"])
        try harness.serve(photo, as: "private.jpg", fields: ["Cache-Control: private, max-age=600"])
        try harness.serve(photo, as: "nocache.jpg", fields: ["Cache-Control: no-cache"])
        try harness.serve(photo, as: "public.jpg", fields: ["Cache-Control: public, max-age=60"])
        try harness.startOrigin()
        let directory = harness.root.appendingPathComponent("cache")
        try harness.startServer(["--allow-unsigned", "--cache-dir", directory.path])
        func get(_ name: String) throws -> ServerHarness.Reply {
            try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/\(name)@png")
        }

        // When each is asked for twice
        let noStore = try [get("nostore.jpg"), get("nostore.jpg")]
        let privately = try [get("private.jpg"), get("private.jpg")]
        let noCache = try [get("nocache.jpg"), get("nocache.jpg")]
        #expect(harness.originRequests >= 6)
        let beforePublic = harness.originRequests
        let shared = try [get("public.jpg"), get("public.jpg")]

        // Then the answers say no more than the origin did
        for reply in noStore + privately + noCache + shared { #expect(reply.status == 200) }
        #expect(noStore.map { $0.headers[.cacheControl] } == ["no-store", "no-store"])
        #expect(privately.allSatisfy { ["private, max-age=600", "private, max-age=599"].contains($0.headers[.cacheControl] ?? "") })
        #expect(noCache.map { $0.headers[.cacheControl] } == ["no-cache", "no-cache"])
        #expect(shared.allSatisfy { ($0.headers[.cacheControl] ?? "").hasPrefix("public, max-age=") })
        let maxAge = Int(shared[1].headers[.cacheControl]?.split(separator: "=").last ?? "") ?? -1
        #expect((58...60).contains(maxAge))
        // And the private, no-store and no-cache results were made each time
        // (the no-store and private originals are not kept by the loader
        // either: the origin saw each of them twice), the public one once
        #expect(harness.originRequests == beforePublic + 1)
        #expect(shared[1].body == shared[0].body)
        // And only the public result reached results/
        let results = directory.appendingPathComponent("results")
        let deadline = Date().addingTimeInterval(10)
        while Self.files(in: results) == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(Self.files(in: results) == 1)
    }

    @Test("Vary: * is passed on and not kept; --max-age caps the origin's freshness, --min-max-age raises it")
    func varyAndBounds() throws {
        let harness = try ServerHarness()
        let photo = try TestImages.gradient(width: 200, height: 100, as: .jpeg)
        try harness.serve(photo, as: "vary.jpg", fields: ["Cache-Control: max-age=600", "Vary: *"])
        try harness.serve(photo, as: "long.jpg", fields: ["Cache-Control: max-age=999999"])
        try harness.serve(photo, as: "short.jpg", fields: ["Cache-Control: max-age=5"])
        try harness.startOrigin()
        try harness.startServer(["--allow-unsigned", "--max-age", "3600", "--min-max-age", "60"])
        let vary = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/vary.jpg")
        #expect(vary.headers[.vary] == "*")
        // The origin's Date has whole seconds: the result may look up to a second older.
        #expect(["public, max-age=600", "public, max-age=599"].contains(vary.headers[.cacheControl] ?? ""))
        let long = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/long.jpg@png")
        #expect(long.headers[.cacheControl] == "public, max-age=3600")
        let short = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/short.jpg@png")
        #expect(short.headers[.cacheControl] == "public, max-age=60")
        // The Vary: * result was not kept: asked again, it is made again.
        let before = harness.originRequests
        _ = try harness.get("/insecure/rs:fit:50:50/plain/\(harness.origin)/vary.jpg")
        #expect(harness.originRequests == before + 1)
    }

    @Test("a source URL with credentials is a 400 in either form, and the origin is never asked")
    func credentials() throws {
        let harness = try ImgproxyInterfaceTests.started()
        let withCredentials = harness.origin.replacingOccurrences(of: "http://", with: "http://user:secret@")
        let processed = try harness.get("/insecure/rs:fit:50:50/plain/\(withCredentials)/photo.jpg@png")
        #expect(processed.status == 400)
        #expect(String(decoding: processed.body, as: UTF8.self) == "the source URL must not carry credentials\n")
        #expect(try harness.get("/thumbnail?url=\(withCredentials)/photo.jpg&width=10&height=10").status == 400)
        #expect(harness.originRequests == 0)
    }
}
