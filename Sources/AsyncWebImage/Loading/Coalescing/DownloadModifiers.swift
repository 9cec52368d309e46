/// The request modifier, response modifier and decryptor applied to one download.
///
/// ``DownloadCoalescer/Configuration/modifiers`` holds the loader-wide
/// defaults; the modifiers given to ``DownloadCoalescer/download(_:modifiers:)``
/// replace them field by field (a nil field keeps the default).
package struct DownloadModifiers: Sendable {
    /// Changes or refuses the request before it is keyed and sent.
    public var requestModifier: RequestModifier?
    /// Sees (and may reject) the response head, per subscriber.
    public var responseModifier: ResponseModifier?
    /// Turns the complete body into the bytes to decode, per subscriber.
    public var decryptor: ImageDataDecryptor?

    /// Creates a set of modifiers; none by default.
    /// - Parameters:
    ///   - requestModifier: The request modifier.
    ///   - responseModifier: The response modifier.
    ///   - decryptor: The decryptor.
    public init(
        requestModifier: RequestModifier? = nil,
        responseModifier: ResponseModifier? = nil,
        decryptor: ImageDataDecryptor? = nil
    ) {
        self.requestModifier = requestModifier
        self.responseModifier = responseModifier
        self.decryptor = decryptor
    }

    /// These modifiers, with `defaults` filling the fields left nil.
    func over(_ defaults: DownloadModifiers) -> DownloadModifiers {
        DownloadModifiers(
            requestModifier: requestModifier ?? defaults.requestModifier,
            responseModifier: responseModifier ?? defaults.responseModifier,
            decryptor: decryptor ?? defaults.decryptor
        )
    }
}
