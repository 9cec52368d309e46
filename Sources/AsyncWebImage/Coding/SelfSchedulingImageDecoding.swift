package import Foundation

/// A decoder that schedules its own work — on threads or in processes of
/// its own, under a bound of its own — instead of holding one of the
/// loader's CPU permits while it decodes.
///
/// The loader (and ``ImageCache``) await ``decodeScheduled(_:options:)``
/// rather than calling ``ImageDecoding/decode(_:options:)`` on the
/// cooperative pool under a CPU permit (``ImageLoader/CPULimits``): the decode's
/// work then waits for, and runs on, whatever the decoder owns, and no
/// cooperative thread blocks on it. ``ImageDecoding/decode(_:options:)``
/// stays for synchronous callers (``ImageCoderRegistry/decode(_:options:)``),
/// and blocks its caller as any synchronous decode does.
///
/// `SVGCoder` (`AsyncWebImageSVG`) is one: each render runs in a child
/// process that its deadline can end, on a few dedicated threads.
package protocol SelfSchedulingImageDecoding: ImageDecoding {
    /// Decodes `data` on the decoder's own threads or processes, within its
    /// own bound on concurrent work; cancelling the calling task ends the
    /// wait, and the work with it where the decoder can end it.
    ///
    /// - Throws: ``ImageError``, or `CancellationError`.
    func decodeScheduled(_ data: Data, options: ImageDecodingOptions) async throws -> Image
}
