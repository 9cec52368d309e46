public import Foundation

/// Rewrites the options and context of every load before anything else
/// happens; the top of the precedence chain (SDWebImage's
/// `SDWebImageOptionsProcessor`). Use it to enforce policy globally, e.g. a
/// thumbnail size for every load of a host.
public struct ImageOptionsProcessor: Sendable {
    private let body: @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)

    /// Creates a processor from `body(url, options, context) -> (options, context)`.
    /// The context it receives is already merged with the loader's defaults.
    public init(_ body: @escaping @Sendable (URL, ImageOptions, ImageContext) -> (ImageOptions, ImageContext)) {
        self.body = body
    }

    /// The options and context to use for `url`.
    public func process(_ url: URL, options: ImageOptions, context: ImageContext) -> (ImageOptions, ImageContext) {
        body(url, options, context)
    }
}
