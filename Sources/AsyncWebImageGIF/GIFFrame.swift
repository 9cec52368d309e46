import AsyncWebImage

/// One image of a GIF as its descriptor and graphic control extension
/// declare it (the pixels go to the reader's row callback).
struct GIFFrame {
    /// A frame's place on the logical screen, as declared (it may reach past the screen).
    struct Rect: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int
    }

    var rect: Rect
    /// RGB triples of the local colour table, else the global one.
    var palette: [UInt8]
    /// The palette index drawn as transparent, if any.
    var transparentIndex: Int?
    /// Display time before the next frame, in hundredths of a second.
    var delayCentiseconds: Int
    /// The GIF disposal method (0 unspecified, 1 keep, 2 background, 3 previous).
    var disposal: Int
    /// Whether the rows are stored in the four interlace passes (the reader
    /// still hands them over at their display index, but out of order).
    var isInterlaced = false
}
