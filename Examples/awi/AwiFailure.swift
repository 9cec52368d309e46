import AsyncWebImage

/// A failure after the command line was accepted: a message for standard
/// error and a sysexits(3) exit code for its kind.
struct AwiFailure: Error {
    /// EX_DATAERR: the bytes are not a decodable image.
    static let dataError: Int32 = 65
    /// EX_UNAVAILABLE: network, HTTP status, refused destination or size limit.
    static let unavailable: Int32 = 69
    /// EX_SOFTWARE: anything else.
    static let software: Int32 = 70
    /// EX_CANTCREAT: the output file cannot be written.
    static let cannotCreate: Int32 = 73

    let message: String
    let exitCode: Int32

    init(message: String, exitCode: Int32) {
        self.message = message
        self.exitCode = exitCode
    }

    /// The failure for an error thrown while loading.
    init(loading error: any Error) {
        guard let error = error as? ImageError else {
            self.init(message: "\(error)", exitCode: Self.software)
            return
        }
        // Pattern matches rather than an exhaustive switch: the library may
        // add cases, and an unknown one is simply "software".
        let code: Int32 =
            if case .undecodable = error { Self.dataError }
            else if case .unsupportedFormat = error { Self.dataError }
            else if case .invalidImage = error { Self.dataError }
            else if case .httpStatus = error { Self.unavailable }
            else if case .network = error { Self.unavailable }
            else if case .timeout = error { Self.unavailable }
            else if case .tooLarge = error { Self.unavailable }
            else if case .destinationNotAllowed = error { Self.unavailable }
            else if case .responseRejected = error { Self.unavailable }
            else { Self.software }
        self.init(message: error.description, exitCode: code)
    }
}
