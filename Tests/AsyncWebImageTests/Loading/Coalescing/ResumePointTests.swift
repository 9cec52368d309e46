import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

/// When a cut transfer may resume, and which answers to its range request
/// may be spliced to the bytes received (RFC 9110 §14, §13.1.5, §8.8).
@Suite("ResumePoint", .timeLimit(.minutes(1)))
struct ResumePointTests {
    static let url = URL(string: "http://127.0.0.1/a.jpg")!
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    static func head(_ status: Int, _ pairs: [(HTTPField.Name, String)]) -> HTTPResponseHead {
        HTTPResponseHead(statusCode: status, headers: HTTPFields(pairs.map { HTTPField(name: $0.0, value: $0.1) }), expectedContentLength: nil, url: url)
    }

    static func first(_ pairs: [(HTTPField.Name, String)]) -> HTTPResponseHead {
        head(200, [(.acceptRanges, "bytes"), (.contentLength, "1000")] + pairs)
    }

    static func partial(_ pairs: [(HTTPField.Name, String)], range: String = "bytes 600-999/1000") -> HTTPResponseHead {
        head(206, [(.contentRange, range)] + pairs)
    }

    @Test("resumable: Accept-Ranges, a known length, no coding, and a strong validator")
    func resumable() throws {
        let point = try #require(ResumePoint(head: Self.first([(.eTag, #""v1""#)]), offset: 600))
        #expect(point.headerFields[.range] == "bytes=600-")
        #expect(point.headerFields[.ifRange] == #""v1""#)
        #expect(ResumePoint(head: Self.head(200, [(.acceptRanges, "bytes"), (.eTag, #""v1""#)]), offset: 600) == nil)
        #expect(ResumePoint(head: Self.first([(.eTag, #""v1""#), (.contentEncoding, "gzip")]), offset: 600) == nil)
        #expect(ResumePoint(head: Self.first([(.eTag, #""v1""#)]), offset: 0) == nil)
        #expect(ResumePoint(head: Self.first([(.eTag, #""v1""#)]), offset: 1000) == nil)
        #expect(ResumePoint(head: Self.first([]), offset: 600) == nil)
    }

    @Test("a weak ETag never goes in If-Range; Last-Modified does only when Date is a minute after it (§8.8.2.2)")
    func dateValidators() throws {
        let modified = HTTPDate.format(Self.now.addingTimeInterval(-3600))
        let strongDate = try #require(ResumePoint(head: Self.first([
            (.eTag, #"W/"v1""#), (.lastModified, modified), (.date, HTTPDate.format(Self.now)),
        ]), offset: 600))
        #expect(strongDate.validator == modified && strongDate.validatorIsDate)
        #expect(ResumePoint(head: Self.first([(.eTag, #"W/"v1""#)]), offset: 600) == nil)
        #expect(ResumePoint(head: Self.first([(.lastModified, modified)]), offset: 600) == nil)
        let justModified = HTTPDate.format(Self.now.addingTimeInterval(-5))
        #expect(ResumePoint(head: Self.first([(.lastModified, justModified), (.date, HTTPDate.format(Self.now))]), offset: 600) == nil)
    }

    @Test("a 206 is spliced only with the same strong ETag and exactly the rest of the same length")
    func partials() throws {
        let point = try #require(ResumePoint(head: Self.first([(.eTag, #""v1""#)]), offset: 600))
        #expect(point.classify(Self.partial([(.eTag, #""v1""#)])) == .rest)
        #expect(point.classify(Self.partial([(.eTag, #""v2""#)])) == .unusable)
        #expect(point.classify(Self.partial([(.eTag, #"W/"v1""#)])) == .unusable)
        #expect(point.classify(Self.partial([])) == .unusable)
        #expect(point.classify(Self.partial([(.eTag, #""v1""#)], range: "bytes 600-1199/1200")) == .unusable)
        #expect(point.classify(Self.partial([(.eTag, #""v1""#)], range: "bytes 500-999/1000")) == .unusable)
        #expect(point.classify(Self.partial([(.eTag, #""v1""#)], range: "bytes 600-799/1000")) == .unusable)
        #expect(point.classify(Self.partial([(.eTag, #""v1""#)], range: "bytes 600-999/*")) == .unusable)
        #expect(point.classify(Self.head(206, [(.eTag, #""v1""#), (.contentType, "multipart/byteranges; boundary=x")])) == .unusable)
        #expect(point.classify(Self.partial([(.eTag, #""v1""#), (.contentEncoding, "gzip")])) == .unusable)
    }

    @Test("with a date validator, a 206 must carry the same date and the same (weak) ETag or none")
    func datePartials() throws {
        let modified = HTTPDate.format(Self.now.addingTimeInterval(-3600))
        let point = try #require(ResumePoint(head: Self.first([(.lastModified, modified), (.date, HTTPDate.format(Self.now))]), offset: 600))
        #expect(point.classify(Self.partial([(.lastModified, modified)])) == .rest)
        #expect(point.classify(Self.partial([(.lastModified, HTTPDate.format(Self.now))])) == .unusable)
        #expect(point.classify(Self.partial([(.lastModified, modified), (.eTag, #""new""#)])) == .unusable)
    }

    @Test("a 200 is the same body again (skip what was received) or another representation (start again with it)")
    func wholes() throws {
        let point = try #require(ResumePoint(head: Self.first([(.eTag, #""v1""#)]), offset: 600))
        #expect(point.classify(Self.head(200, [(.eTag, #""v1""#), (.contentLength, "1000")])) == .whole)
        #expect(point.classify(Self.head(200, [(.eTag, #""v1""#)])) == .whole)
        #expect(point.classify(Self.head(200, [(.eTag, #""v2""#), (.contentLength, "1000")])) == .replacement)
        #expect(point.classify(Self.head(200, [(.eTag, #""v1""#), (.contentLength, "1200")])) == .replacement)
        #expect(point.classify(Self.head(200, [(.contentLength, "1000")])) == .replacement)
        #expect(point.classify(Self.head(302, [(.location, "/b")])) == .unusable)
    }

    @Test("Content-Range: one range of a known length, nothing else")
    func contentRange() {
        #expect(ResumePoint.ContentRange("bytes 0-9/10") == ResumePoint.ContentRange("BYTES 0-9/10"))
        #expect(ResumePoint.ContentRange("bytes 0-9/10")?.complete == 10)
        for invalid in ["bytes */10", "bytes 0-9/*", "bytes 9-0/10", "bytes 0-10/10", "items 0-9/10", "bytes 0-9", "bytes -1-9/10", nil] {
            #expect(ResumePoint.ContentRange(invalid) == nil, "\(String(describing: invalid))")
        }
    }
}
