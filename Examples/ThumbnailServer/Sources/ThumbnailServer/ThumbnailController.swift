import AsyncWebImage
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The HTTP side of `GET /thumbnail`: parameters in, thumbnail or error
/// status out, with `ETag`, `Cache-Control` and `304 Not Modified`.
struct ThumbnailController: Sendable {
    let renderer: ThumbnailRenderer
    let maxOutputDimension: Int
    /// Which requests may fetch: signatures on both URL forms.
    let signatures: SignaturePolicy
    /// Whether answers carry `X-Cache` (`--cache-status-header`).
    var showsCacheStatus = false

    /// Adds the routes to `router`.
    func addRoutes(to router: Router<ThumbnailRequestContext>) {
        router.get("thumbnail") { request, context in
            // The work of a miss stops when the client leaves: its transfer
            // and its decode permit go back to requests someone still waits for.
            await respond(to: request, context: context, watch: ClientDisconnectHandler.watch(for: context.channel))
        }
        router.get("health") { _, _ in
            "ok\n"
        }
        // imgproxy-style: /{signature}/{options…}/plain/{url}@{ext} or /{signature}/{options…}/{base64url}.{ext}.
        router.get("**") { request, context in
            await respondProcessed(to: request, context: context, watch: ClientDisconnectHandler.watch(for: context.channel))
        }
    }

    /// Answers one imgproxy-style request: signature, options, negotiation, result.
    func respondProcessed(to request: Request, context: ThumbnailRequestContext, watch: ClientDisconnectWatch? = nil) async -> Response {
        do {
            // The path as sent (still percent-encoded): what was signed.
            let path = request.uri.path.dropFirst()
            let slash = path.firstIndex(of: "/") ?? path.endIndex
            let signature = path[..<slash]
            let rest = path[slash...]
            // A first segment that cannot be a signature, or nothing after
            // it: no route of ours, a 404 rather than a 403.
            guard slash < path.endIndex, SignaturePolicy.isSignatureShaped(signature) else { throw ThumbnailError.notFound }
            try signatures.checkProcessing(signature: signature, path: rest)
            let parameters = try ProcessingRequest(path: rest, maxDimension: maxOutputDimension)
            let negotiated = parameters.format == nil
            let format = parameters.format ?? Self.negotiateFormat(accept: request.headers[.accept])
            // An animated source stays animated in WebP: asked for, or
            // negotiated when the client takes WebP (AVIF output is still-only).
            let animates = parameters.format == .webp
                || (negotiated && Self.accepts("image/webp", accept: request.headers[.accept]))
            let thumbnail = try await renderer.render(parameters, format: format, animatesAsWebP: animates, watch: watch)
            context.outcome.cacheStatus = thumbnail.cacheStatus
            return response(for: thumbnail, request: request, variesByAccept: negotiated)
        } catch {
            return Self.errorResponse(for: error, outcome: context.outcome)
        }
    }

    /// The output format for an `Accept` field: AVIF, then WebP, when the
    /// client lists them (not with `q=0`); `nil` otherwise (JPEG, or PNG for
    /// an image with alpha). `*/*` does not count: browsers send it with
    /// images they cannot show.
    static func negotiateFormat(accept: String?) -> ImageFormat? {
        let accepted = acceptedTypes(accept)
        if accepted.contains("image/avif") { return .avif }
        if accepted.contains("image/webp") { return .webp }
        return nil
    }

    /// Whether `accept` lists `type` (not with `q=0`).
    static func accepts(_ type: String, accept: String?) -> Bool {
        acceptedTypes(accept).contains(type)
    }

    /// The media types `accept` lists without `q=0`, lower-cased. A weight
    /// that is not a qvalue (RFC 9110 §12.4.2: a number from 0 to 1; `nan`,
    /// `inf`, `2`, `abc` are not) refuses its type too: only a format the
    /// client clearly takes is negotiated.
    private static func acceptedTypes(_ accept: String?) -> Set<String> {
        guard let accept else { return [] }
        var accepted: Set<String> = []
        for range in accept.split(separator: ",") {
            let parts = range.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            let refused = parts.dropFirst().contains { parameter in
                guard parameter.hasPrefix("q=") else { return false }
                guard let weight = Double(parameter.dropFirst(2)), weight.isFinite, weight <= 1 else { return true }
                return weight <= 0
            }
            if !refused { accepted.insert(type) }
        }
        return accepted
    }

    /// A 200 (or a 304 for a matching `If-None-Match`) carrying `thumbnail`.
    func response(for thumbnail: Thumbnail, request: Request, variesByAccept: Bool) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = thumbnail.entityTag.value
        // No more permissive than the origin's (ThumbnailCachePolicy).
        headers[.cacheControl] = thumbnail.cacheControl
        // The answer depends on Accept: shared caches must key on it. An
        // origin's `Vary: *` says more (no stored copy ever matches).
        if thumbnail.variesOnEverything {
            headers[.vary] = "*"
        } else if variesByAccept {
            headers[.vary] = "Accept"
        }
        if let ifNoneMatch = request.headers[.ifNoneMatch], thumbnail.entityTag.matches(ifNoneMatch: ifNoneMatch) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = thumbnail.format.mimeType
        headers[.contentLength] = String(thumbnail.body.count)
        if showsCacheStatus { headers[Self.cacheStatus] = thumbnail.cacheStatus }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: thumbnail.body)))
    }

    /// Answers one request; every failure becomes a status with a one-line text body.
    func respond(to request: Request, context: ThumbnailRequestContext, watch: ClientDisconnectWatch? = nil) async -> Response {
        let query = request.uri.queryParameters
        do {
            try signatures.checkQuery(target: (request.head.path ?? "")[...])
            let parameters = try ThumbnailRequest(
                values: { name in query.getAll(name) },
                maxDimension: maxOutputDimension
            )
            let thumbnail = try await renderer.render(parameters, watch: watch)
            context.outcome.cacheStatus = thumbnail.cacheStatus
            return response(for: thumbnail, request: request, variesByAccept: false)
        } catch {
            return Self.errorResponse(for: error, outcome: context.outcome)
        }
    }

    /// `X-Cache`: the tier of an encoded-result hit (`hit-result-memory`,
    /// `-disk`, `-redis`), else where the pixels came from (`miss`,
    /// `hit-memory`, `hit-disk`).
    static let cacheStatus = HTTPField.Name("X-Cache")!

    /// The status and text for `error`; its reason goes to `outcome` (the access log).
    static func errorResponse(for error: any Error, outcome: RequestOutcome? = nil) -> Response {
        let failure: ThumbnailError =
            switch error {
            case let error as ThumbnailError: error
            case let error as ImageError: ThumbnailError(error)
            // The client went away (Hummingbird cancels the handler's task); nobody reads this.
            case is CancellationError: .upstreamFailed("cancelled")
            default: .internalError(String(describing: error))
            }
        outcome?.errorReason = failure.message
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        // Failures are not cached: a timeout or a refused host may not last.
        headers[.cacheControl] = "no-store"
        return Response(
            status: HTTPResponse.Status(code: failure.status),
            headers: headers,
            // One line, whatever the reason holds (a host decoded from the URL, an upstream's text).
            body: ResponseBody(byteBuffer: ByteBuffer(string: LogText.escaped(failure.message) + "\n"))
        )
    }
}
