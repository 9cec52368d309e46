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
    /// `Cache-Control` of successful responses.
    let cacheControl: String

    /// Adds the routes to `router`.
    func addRoutes(to router: Router<ThumbnailRequestContext>) {
        router.get("thumbnail") { request, context in
            // The work stops when the client leaves: its transfer and its
            // decode permit go back to requests someone still waits for.
            guard let watch = ClientDisconnectHandler.watch(for: context.channel) else {
                return await respond(to: request)
            }
            return await watch.run { await respond(to: request) }
        }
        router.get("health") { _, _ in
            "ok\n"
        }
    }

    /// Answers one request; every failure becomes a status with a one-line text body.
    func respond(to request: Request) async -> Response {
        let query = request.uri.queryParameters
        do {
            let parameters = try ThumbnailRequest(
                parameter: { name in query[name[...]].map(String.init) },
                maxDimension: maxOutputDimension
            )
            let thumbnail = try await renderer.render(parameters)
            var headers = HTTPFields()
            headers[.eTag] = thumbnail.entityTag.value
            headers[.cacheControl] = cacheControl
            // The client's validator is compared after rendering: the tag
            // depends on the output (see ``EntityTag``), which for a hot
            // thumbnail is a memory-cache hit plus one small encode.
            if let ifNoneMatch = request.headers[.ifNoneMatch], thumbnail.entityTag.matches(ifNoneMatch: ifNoneMatch) {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = thumbnail.format.mimeType
            headers[.contentLength] = String(thumbnail.body.count)
            headers[Self.cacheStatus] = thumbnail.cacheType == .none ? "miss" : "hit-\(thumbnail.cacheType)"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: thumbnail.body)))
        } catch {
            return Self.errorResponse(for: error)
        }
    }

    /// `X-Cache`: where the pixels came from (`miss`, `hit-memory`, `hit-disk`).
    static let cacheStatus = HTTPField.Name("X-Cache")!

    /// The status and text for `error`.
    static func errorResponse(for error: any Error) -> Response {
        let failure: ThumbnailError =
            switch error {
            case let error as ThumbnailError: error
            case let error as ImageError: ThumbnailError(error)
            // The client went away (Hummingbird cancels the handler's task); nobody reads this.
            case is CancellationError: .upstreamFailed("cancelled")
            default: .internalError(String(describing: error))
            }
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; charset=utf-8"
        // Failures are not cached: a timeout or a refused host may not last.
        headers[.cacheControl] = "no-store"
        return Response(
            status: HTTPResponse.Status(code: failure.status),
            headers: headers,
            body: ResponseBody(byteBuffer: ByteBuffer(string: failure.message + "\n"))
        )
    }
}
