/// Which way a PNG decode goes for a requested target size, and the memory
/// that way allocates, known from the header before any pixel buffer exists.
struct PNGDecodeRoute: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// The whole image at full size (no target).
        case full
        /// Box-averaged by a whole factor while decoding, then resampled to the target.
        case shrink(factor: Int)
        /// Resampled row by row to this size while decoding (less than twice the target).
        case resample(PixelSize)
    }

    let kind: Kind
    /// Bytes the decode allocates besides libspng's context and the inflate
    /// buffer of the libdeflate path (which is only used within what the
    /// budget leaves): pixel buffers, reducer sums, row buffers (16-bit rows
    /// at their real size, twice the 8-bit row), resampler intermediates.
    let memoryBytes: Int
    /// Bytes of the image the decode returns.
    let resultBytes: Int

    init(plan: PNGDecodePlan, target: PixelSize?, filter: ImageTransformers.Resize.Filter = ImageResampler.defaultFilter) {
        let channels = plan.pixelFormat.channelCount
        let fullBytes = plan.rowBytes * plan.height
        // One 8-bit row, and one 16-bit row (2 bytes a sample) for 16-bit images.
        let rowBuffers = plan.rowBytes + (plan.isSixteenBit ? plan.rowBytes * 2 : 0)
        guard let target else {
            kind = .full
            memoryBytes = fullBytes + rowBuffers
            resultBytes = fullBytes
            return
        }
        let targetBytes = target.width * target.height * channels
        resultBytes = targetBytes
        if let factor = PNGCoder.shrinkFactor(plan: plan, target: target, filter: filter) {
            kind = .shrink(factor: factor)
            let (width, height) = ((plan.width + factor - 1) / factor, (plan.height + factor - 1) / factor)
            let reduced = width * height * channels
            // BoxReducer keeps one band of UInt32 sums; ScatteredBoxReducer the whole reduced image's.
            let sums = (plan.isInterlaced ? width * height : width) * channels * 4
            // The resample that follows: its rows, ring and weights (either order), then the output.
            let resample = SeparableResampler.workingBytesEstimate(
                sourceWidth: width, sourceHeight: height, to: target, channels: channels
            ) + targetBytes
            memoryBytes = reduced + sums + rowBuffers + resample
        } else {
            kind = .resample(target)
            // StreamingResampler: its rows, ring and weights (either order).
            let working = SeparableResampler.workingBytesEstimate(
                sourceWidth: plan.width, sourceHeight: plan.height, to: target, channels: channels
            )
            memoryBytes = targetBytes + working + rowBuffers + (plan.isInterlaced ? fullBytes : 0)
        }
    }

    /// Throws when the decode (plus a rotated copy when the orientation is
    /// applied) would allocate more than `budget` bytes.
    ///
    /// - Throws: ``ImageError/tooLarge(_:limit:actual:)`` with `.decodedBytes`.
    func checkMemory(budget: Int, applyingOrientation: Bool) throws(ImageError) {
        let total = memoryBytes + (applyingOrientation ? resultBytes : 0)
        guard total <= budget else {
            throw .tooLarge(.decodedBytes, limit: Int64(budget), actual: Int64(total))
        }
    }
}
