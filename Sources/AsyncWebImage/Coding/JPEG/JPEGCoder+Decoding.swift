import CTurboJPEG

extension JPEGCoder {
    /// What a decode does when the data runs out or is damaged.
    enum Completeness {
        /// A final image: data that ran out or is corrupt is an error.
        case required
        /// A preview of a download in progress: decode what is there (libjpeg
        /// fills what is missing) and mark the image as a preview.
        case partialAllowed
        /// A final image from whatever libjpeg decodes, warnings or not
        /// (``JPEGCoder/DamagedDataPolicy/decodeAvailable``).
        case bestEffort
        /// A final image from a file that lacked only its EOI marker, decoded
        /// with one appended: any warning at all fails it, since TurboJPEG
        /// reports only the first and a harmless one could hide the
        /// "premature end of data segment" of a scan cut short.
        case requiredWithoutWarnings

        /// Whether the result is a final image (colour managed, not a preview).
        var isFinal: Bool { self != .partialAllowed }
        /// Whether truncation and damage are checked (and fail the decode).
        var checksIntegrity: Bool { self == .required || self == .requiredWithoutWarnings }
    }

    /// Decodes JPEG bytes: header, pixel limit, DCT-scaled decompression
    /// straight into the image's storage, exact resampling, orientation.
    ///
    /// The order matters for hostile input: the header is parsed and the
    /// pixel limit checked before any pixel buffer exists, so a small file
    /// declaring 64250×64250 fails in microseconds. A size within the limit
    /// must then be backed by data: a Huffman-coded file shorter than 1 bit
    /// (progressive) or 2 bits (sequential) per 8×8 block cannot be complete
    /// and fails before libjpeg decodes or allocates coefficients or pixels;
    /// safe because no valid file goes below that (a one-colour progressive
    /// file with a single DC scan is the extreme, about 1.002 bits a block).
    ///
    /// ## Truncated and corrupt data (``Completeness/required``)
    /// libjpeg decodes nearly anything, filling what it cannot read with
    /// grey, and TurboJPEG then reports a *warning*. A final image must not
    /// be half grey, so only warnings known to be harmless are accepted:
    /// extraneous bytes between markers, an unknown JFIF revision or Adobe
    /// transform code, odd SOS parameters, an inconsistent progression, a
    /// bad ICC marker, a JFIF thumbnail of the wrong size. Every other
    /// warning is an error: "Premature end of JPEG file" (the data ran out),
    /// "premature end of data segment" (a scan ended early), bad Huffman or
    /// arithmetic codes, a missing restart marker. A sequential file whose
    /// data ends inside its one scan may lack only its EOI marker: it is
    /// decoded again with the marker appended (``Completeness/requiredWithoutWarnings``),
    /// where a scan that is really cut short still warns and fails.
    ///
    /// A truncated download is caught before libjpeg is involved: the
    /// markers of the whole data are walked (a `memchr` through the
    /// entropy-coded data), and without an EOI marker the decode fails
    /// before any pixel memory is allocated (unless it may lack only that
    /// marker, as above); so does data ending with an EOI
    /// the walk cannot reach (a segment length below 2, which libjpeg would
    /// skip past, uncounted). The same walk counts the scans
    /// and the blocks they code, checked against
    /// ``ImageDecodingOptions/maxScanCount`` and
    /// ``ImageDecodingOptions/maxScanBlockCount`` (previews too, on the data so far).
    ///
    /// Two TurboJPEG quirks shape the rule. It keeps only the *first*
    /// warning's text; the EOI check above ensures a truncation cannot hide
    /// behind an earlier harmless warning. And a fatal error after a warning
    /// is still reported with the warning code, but with the fatal message —
    /// which is not on the list, so it is rejected too.
    ///
    /// Garbage inside entropy-coded data is caught where libjpeg can see it:
    /// as a bad Huffman code, a missing restart marker, or bytes left over
    /// before a restart marker (extraneous bytes before RST*n*, an error
    /// although the same warning before other markers is accepted). What
    /// remains undetected, as in browsers, ImageIO and libvips, which all
    /// show what decodes: garbage that happens to decode as valid codes in
    /// a scan without restart markers (its leftover bytes before EOI or the
    /// next segment look like the harmless padding many phones write), and
    /// entropy data corrupted *after* a harmless warning in a file that
    /// still ends properly.
    ///
    /// - Throws: ``ImageError/undecodable(_:_:)`` with libjpeg's message;
    ///   ``ImageError/tooLarge(_:limit:actual:)`` over the pixel or scan limits.
    static func decodeImage(
        _ jpeg: UnsafeRawBufferPointer,
        options: ImageDecodingOptions,
        completeness: Completeness
    ) throws(ImageError) -> Image {
        guard jpeg.count >= 3, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else {
            throw .undecodable(.jpeg, jpeg.isEmpty ? "no data" : "not JPEG data (no SOI marker)")
        }
        let handle = try TurboJPEGHandle(.decompressor)
        let header = try handle.readHeader(jpeg)
        // TurboJPEG "succeeds" with 0×0 on data that ends before the frame header.
        guard header.size.width > 0, header.size.height > 0 else { throw .undecodable(.jpeg, "no frame header") }
        try options.checkPixelLimit(header.size)

        // Markers up to the first scan: the EXIF orientation. A malformed
        // segment here only costs the orientation; libjpeg judges the data.
        var markers = JPEGMarkerScanner(recordingScans: true)
        try? markers.advance(jpeg, stopAtFirstScan: true)
        let orientation = markers.orientation ?? .up
        if completeness.checksIntegrity {
            try checkLength(jpeg, frame: markers.frame, declared: header.size)
        }
        // Every scan is counted before libjpeg decodes one: a small file may
        // declare thousands, each a pass over the whole frame.
        let walk = Result { () throws(ImageError) in try markers.advance(jpeg) }
        if completeness.checksIntegrity {
            if !endsWithEOI(jpeg) {
                // Trailing bytes after EOI, or a truncated download: tell them
                // apart before allocating pixels for a decode that would fail.
                try walk.get()
                if !markers.sawEndOfImage {
                    guard markers.endsInsideSoleSequentialScan else {
                        throw .undecodable(.jpeg, "truncated data: no EOI marker")
                    }
                    // Perhaps only the EOI marker is missing: with one appended, a
                    // sequential scan that ends early still makes libjpeg warn
                    // ("premature end of data segment"), which fails below.
                    let sealed = [UInt8](jpeg) + [0xFF, 0xD9]
                    return try sealed.withUnsafeBytes { bytes in
                        Result { () throws(ImageError) in try decodeImage(bytes, options: options, completeness: .requiredWithoutWarnings) }
                    }.get()
                }
            } else if !markers.sawEndOfImage {
                // Markers the walk cannot follow to the EOI at the end: the
                // scans past that point are uncounted, so libjpeg is not
                // let loose on them (it would skip, for one, a segment length below 2).
                let reason = if case .failure(.undecodable(_, let message)) = walk { message } else { "no EOI marker reached" }
                throw .undecodable(.jpeg, "truncated or corrupt data: marker structure after \(markers.completedScans) scan(s): \(reason)")
            }
        }
        try options.checkScanLimits(scans: markers.completedScans, blocks: markers.completedScanBlocks)

        let target = options.targetSize(forStored: header.size, orientation: orientation)
        let scale = target.map { JPEGScale.forThumbnail($0, from: header.size, filter: options.thumbnailFilter) } ?? .one
        var pruned: [UInt8]?
        if completeness.checksIntegrity, let mode = JPEGReducedScaleTranscoder.Mode(scale: scale),
           let frame = markers.frame, frame.marker == 0xC2 {
            // A progressive thumbnail at 1/8 or 1/4 needs a fraction of the
            // coefficients: as a baseline stream of just those (decoded
            // without whole-image coefficient arrays; at 1/4 from the lowest
            // spectral band, judged by the quality panel). Failing that, at
            // 1/8 with the scans that scale does not read dropped; at 1/4 the
            // file as it is.
            pruned = JPEGReducedScaleTranscoder.baselineStream(jpeg, frame: frame, mode: mode)
                ?? (mode == .eighth ? JPEGScanPruner.eighthScaleStream(jpeg, scanner: markers) : nil)
        }
        // Colour: previews are never converted; a CMYK profile is applied
        // while converting to RGB, any other at the end (ColorManager).
        let colorProfile = completeness.isFinal
            ? JPEGICCProfileReader.profile(in: jpeg, limit: options.maximumColorProfileBytes) : nil
        let cmykPlan = header.isCMYK ? ColorManager.cmykPlan(profile: colorProfile, options: options) : nil
        // An RGB image that is not resampled after the decode converts in
        // place, in the buffer TurboJPEG fills (hot in cache, no second one).
        let resamples = target.map { $0 != scale.apply(to: header.size) } ?? false
        let inPlace = completeness.isFinal && !header.isCMYK && !header.isGray && !resamples
            ? ColorManager.inPlaceTransform(profile: colorProfile, layout: .rgb, options: options) : nil
        var (image, warning) = if let pruned {
            try pruned.withUnsafeBytes { bytes in
                Result { () throws(ImageError) in
                    try decompress(bytes, header: header, scale: scale, handle: handle, cmykPlan: cmykPlan, converting: inPlace)
                }
            }.get()
        } else {
            try decompress(jpeg, header: header, scale: scale, handle: handle, cmykPlan: cmykPlan, converting: inPlace)
        }

        if let warning, completeness.checksIntegrity {
            guard completeness == .required else { throw .undecodable(.jpeg, "truncated or corrupt data: no EOI marker (\(warning))") }
            try judge(warning: warning)
        }
        if let target, target != image.size {
            image = options.resampleThumbnail(image, to: target)
        }
        image = image.with(orientation: orientation, isPreview: completeness == .partialAllowed)
        image = options.applyOrientation ? image.applyingOrientation() : image
        if let cmykPlan { return image.with(colorProfile: nil, conversion: cmykPlan.conversion) }
        if inPlace != nil { return image.with(colorProfile: nil, conversion: .converted) }
        return completeness.isFinal ? ColorManager.manage(consume image, profile: colorProfile, options: options) : image
    }

    /// Decompresses at `scale` into a new image, converting CMYK to RGB, and
    /// RGB through `converting` (in place) when given.
    private static func decompress(
        _ jpeg: UnsafeRawBufferPointer,
        header: TurboJPEGHandle.Header,
        scale: JPEGScale,
        handle: borrowing TurboJPEGHandle,
        cmykPlan: ColorManager.CMYKPlan? = nil,
        converting transform: ColorTransform? = nil
    ) throws(ImageError) -> (Image, warning: String?) {
        let size = scale.apply(to: header.size)
        // Errors cannot leave `Image.make`'s fill closure typed, so the
        // outcome is carried out of it instead.
        var outcome: Result<String?, ImageError> = .success(nil)
        if header.isCMYK {
            // TurboJPEG has no CMYK → RGB conversion: decode CMYK into a
            // scratch buffer, then convert into the image's storage.
            let pitch = size.width * 4
            let cmyk = [UInt8](unsafeUninitializedCapacity: pitch * size.height) { buffer, initialized in
                outcome = Result { () throws(ImageError) in
                    try handle.decompress(jpeg, into: UnsafeMutableRawBufferPointer(buffer), size: size, pitch: pitch, pixelFormat: TJPF_CMYK)
                }
                initialized = buffer.count
            }
            let warning = try outcome.get()
            let image = cmyk.withUnsafeBytes { source in
                Image.make(width: size.width, height: size.height, pixelFormat: .rgb8, format: .jpeg) { destination in
                    CMYKConverter.convert(source, to: destination, size: size, plan: cmykPlan ?? .naive)
                }
            }
            return (image, warning)
        }
        let (pixelFormat, tjFormat) = header.isGray ? (PixelFormat.gray8, TJPF_GRAY) : (.rgb8, TJPF_RGB)
        // Decoded straight into the image's storage, never zero-filled:
        // TurboJPEG writes every byte (grey where data is missing).
        let image = Image.make(width: size.width, height: size.height, pixelFormat: pixelFormat, format: .jpeg) { destination in
            let pitch = size.width * pixelFormat.bytesPerPixel
            outcome = Result { () throws(ImageError) in
                try handle.decompress(jpeg, into: destination, size: size, pitch: pitch, pixelFormat: tjFormat)
            }
            if let transform, case .success = outcome {
                transform.apply(
                    destination.baseAddress!, sourceStride: pitch, into: destination.baseAddress!, destinationStride: pitch,
                    width: size.width, height: size.height
                )
            }
        }
        return (image, try outcome.get())
    }

    /// Throws when `jpeg` is shorter than any complete file of the size its
    /// frame header declares can be (``JPEGMarkerScanner/Frame/minimumByteCount``).
    ///
    /// Such data would fail anyway, once libjpeg ran out of entropy-coded
    /// data ("premature end of data segment"), but only after it allocated
    /// for the declared size: for a progressive frame, coefficient arrays
    /// of 128 bytes per block, then the output image.
    ///
    /// - Parameters:
    ///   - frame: the frame header as the marker scanner read it.
    ///   - size: the size libjpeg read from the frame header.
    static func checkLength(_ jpeg: UnsafeRawBufferPointer, frame: JPEGMarkerScanner.Frame?, declared size: PixelSize) throws(ImageError) {
        // libjpeg skips a segment with a length below 2, the scanner stops
        // there: a frame header only libjpeg reached is not one to trust.
        guard let frame, frame.size == size else {
            throw .undecodable(.jpeg, "corrupt marker segments before the frame header")
        }
        guard let minimum = frame.minimumByteCount, jpeg.count < minimum else { return }
        let (kind, bits) = frame.isProgressive ? ("progressive", 1) : ("sequential", 2)
        throw .undecodable(.jpeg, "truncated data: too short for the declared \(size): \(jpeg.count) bytes, "
            + "where a complete \(kind) JPEG of that size has at least \(minimum) (\(bits) bit\(bits == 1 ? "" : "s") per 8×8 block)")
    }

    /// Whether the data's last two bytes are the EOI marker (true of nearly
    /// every complete file).
    static func endsWithEOI(_ jpeg: UnsafeRawBufferPointer) -> Bool {
        jpeg.count >= 4 && jpeg[jpeg.count - 2] == 0xFF && jpeg[jpeg.count - 1] == 0xD9
    }

    /// The libjpeg warnings that do not cost pixels (lowercased fragments of
    /// the messages in libjpeg-turbo's `jerror.h`).
    static let harmlessWarnings = [
        "extraneous bytes before marker", // JWRN_EXTRANEOUS_DATA: junk between segments, common in camera files
        "unknown jfif revision", // JWRN_JFIF_MAJOR
        "unknown adobe color transform", // JWRN_ADOBE_XFORM
        "invalid sos parameters for sequential", // JWRN_NOT_SEQUENTIAL
        "inconsistent progression sequence", // JWRN_BOGUS_PROGRESSION
        "bad icc marker", // JWRN_BOGUS_ICC
        "thumbnail image size does not match", // JFIF thumbnail length
    ]

    /// Throws unless libjpeg's `warning` is harmless for a final image (see
    /// ``decodeImage(_:options:completeness:)``).
    static func judge(warning: String) throws(ImageError) {
        let lowered = warning.lowercased()
        guard harmlessWarnings.contains(where: { lowered.contains($0) }), !Self.isInsideScan(lowered) else {
            throw .undecodable(.jpeg, "truncated or corrupt data: \(warning)")
        }
    }

    /// Whether a lower-cased "extraneous bytes before marker 0xNN" warning
    /// names a restart marker (RST0–RST7, `0xd0`–`0xd7`). Those only occur
    /// inside a scan's entropy-coded data, so bytes before one are not junk
    /// between segments (what camera files carry, and what the warning is
    /// accepted for) but a restart interval longer than its MCUs: damaged
    /// data, whose garbage libjpeg decoded as coefficients before it
    /// resynchronised. Before any other marker (EOI, DHT, SOS…) the bytes
    /// cannot be told from harmless padding, and are accepted.
    static func isInsideScan(_ lowered: String) -> Bool {
        guard lowered.contains("extraneous bytes before marker") else { return false }
        // libjpeg's text ends "before marker 0x%02x".
        let words = lowered.split(separator: " ")
        guard let index = words.firstIndex(of: "marker"), index + 1 < words.count, words[index + 1].hasPrefix("0x"),
              let marker = UInt8(words[index + 1].dropFirst(2), radix: 16)
        else { return false }
        return (0xD0...0xD7).contains(marker)
    }
}
