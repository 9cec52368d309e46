import Testing
@testable import AsyncWebImage

@Suite("CurlDataLoader.DestinationGuard", .timeLimit(.minutes(1)))
struct DestinationGuardTests {
    static let refused = [
        "127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "0.0.0.0", "0.1.2.3", "100.64.0.1", "100.127.255.254", "224.0.0.1",
        "239.255.255.250", "255.255.255.255", "240.0.0.1", "192.0.0.8", "198.18.0.1",
        "::", "::1", "fc00::1", "fd12:3456::1", "fe80::1", "fe80::1%eth0", "ff02::1", "fec0::1",
        "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "::127.0.0.1",
        "2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:c0a8:0101::1",
        "64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::10.0.0.1",
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  // Teredo client 127.0.0.1 (inverted 80ff:fffe)
        "2001:0:7f00:1::1",                     // Teredo server 127.0.0.1
        "[::1]",
    ]

    static let permitted = [
        "8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "100.63.255.255",
        "192.169.0.1", "169.255.0.1", "223.255.255.255", "2606:4700:4700::1111", "2001:4860:4860::8888",
        "::ffff:8.8.8.8", "2002:0808:0808::1", "64:ff9b::8.8.8.8",
        "2001:0:4136:e378:8000:63bf:f7f7:f7f7", // Teredo: server 65.54.227.120, client 8.8.8.8
    ]

    @Test("refuses every internal address, including IPv4 inside IPv6", arguments: refused)
    func refuses(text: String) throws {
        let address = try #require(CurlDataLoader.DestinationGuard.IPAddress(text), "\(text) should parse")
        #expect(!CurlDataLoader.DestinationGuard().permits(address), "\(text) → \(CurlDataLoader.DestinationGuard.categories(of: address))")
    }

    @Test("permits public addresses", arguments: permitted)
    func permits(text: String) throws {
        let address = try #require(CurlDataLoader.DestinationGuard.IPAddress(text), "\(text) should parse")
        #expect(CurlDataLoader.DestinationGuard().permits(address), "\(text) → \(CurlDataLoader.DestinationGuard.categories(of: address))")
    }

    @Test("explicitly allowed addresses pass; categories can be chosen")
    func allowList() throws {
        let loopback = try #require(CurlDataLoader.DestinationGuard.IPAddress("127.0.0.1"))
        #expect(CurlDataLoader.DestinationGuard(allowed: [loopback]).permits(loopback))
        #expect(!CurlDataLoader.DestinationGuard(allowed: [loopback]).permits(try #require(CurlDataLoader.DestinationGuard.IPAddress("127.0.0.2"))))
        #expect(CurlDataLoader.DestinationGuard(refused: [.privateNetwork]).permits(loopback))
        #expect(CurlDataLoader.DestinationGuard.categories(of: try #require(CurlDataLoader.DestinationGuard.IPAddress("::ffff:10.0.0.1"))) == .privateNetwork)
    }

    @Test("rejects malformed address text")
    func parsing() {
        for text in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.-1", "::1::", "1:2:3:4:5:6:7:8:9", "12345::", "g::1", "localhost", "1.2.3.4 "] {
            #expect(CurlDataLoader.DestinationGuard.IPAddress(text) == nil, "\(text)")
        }
        #expect(CurlDataLoader.DestinationGuard.IPAddress("1:2:3:4:5:6:7:8")?.description == "1:2:3:4:5:6:7:8")
        #expect(CurlDataLoader.DestinationGuard.IPAddress("::ffff:1.2.3.4")?.description == "0:0:0:0:0:ffff:102:304")
        #expect(CurlDataLoader.DestinationGuard.IPAddress("10.0.0.255")?.description == "10.0.0.255")
    }
}
