import AsyncWebImage
import Foundation
import Testing

/// The server's `ServiceGroup` on SIGTERM, against a real server process and
/// a slow loopback origin.
@Suite(.serialized)
struct GracefulShutdownTests {
    @Test("SIGTERM during a slow request: the request still gets its 200, the caches are written, the process exits 0")
    func sigtermDuringSlowRequest() throws {
        // Given a server with a disk cache in front of an origin that answers after 2 s
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("thumbnail-shutdown-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let harness = try ServerHarness()
        try harness.serve(try TestImages.gradient(width: 200, height: 100, as: .png), as: "slow.png")
        try harness.startOrigin(delay: 2)
        try harness.startServer(["--allow-unsigned", "--cache-dir", directory.path])

        // When a request is in flight (the origin has seen it) and the server gets SIGTERM
        let bodyFile = harness.root.appendingPathComponent("slow-answer")
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        curl.arguments = ["curl", "-s", "--max-time", "30", "-o", bodyFile.path, "-w", "%{http_code}",
                          harness.base + "/insecure/rs:fit:50:50/plain/\(harness.origin)/slow.png@png"]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        let deadline = Date().addingTimeInterval(20)
        while harness.originRequests == 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(harness.originRequests == 1)
        let signalled = Date()
        harness.signalServer(SIGTERM)

        // Then the request completes with the thumbnail, and the process
        // exits with status 0 soon after (the origin's 2 s, plus shutdown)
        let status = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        #expect(status == "200")
        #expect(try ImgproxyInterfaceTests.size(of: try Data(contentsOf: bodyFile), in: harness) == "50x25")
        let exitStatus = harness.waitForServerExit(timeout: 15)
        #expect(exitStatus == 0)
        #expect(Date().timeIntervalSince(signalled) < 15)
        // And what the loader and the result cache write in the background
        // was written before the exit: the original and the encoded answer
        func files(in folder: String) -> Int {
            let url = directory.appendingPathComponent(folder)
            let enumerator = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
            return (enumerator?.allObjects as? [URL] ?? []).filter {
                (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
            }.count
        }
        #expect(files(in: "originals") >= 1)
        #expect(files(in: "results") >= 1)
    }
}
