extension AnimatedImage {
    /// What an animation's container says before any frame is decoded: the
    /// canvas, the frames' display times and how often it plays.
    public struct Info: Sendable, Hashable {
        /// Width of the canvas every frame is composited onto, in pixels.
        public var canvasWidth: Int
        /// Height of the canvas every frame is composited onto, in pixels.
        public var canvasHeight: Int
        /// How long each frame stays on screen, as the file states it.
        ///
        /// Decoders report the stored value unchanged; the browsers' rule for
        /// very short delays is applied in one place, by whoever plays the frames.
        public var frameDurations: [Duration]
        /// How many times the animation plays; 0 means forever.
        public var loopCount: Int

        /// The number of frames.
        public var frameCount: Int { frameDurations.count }

        /// Creates animation facts.
        /// - Parameters:
        ///   - canvasWidth: The canvas width in pixels.
        ///   - canvasHeight: The canvas height in pixels.
        ///   - frameDurations: Each frame's stored display time.
        ///   - loopCount: Plays; 0 for forever.
        public init(canvasWidth: Int, canvasHeight: Int, frameDurations: [Duration], loopCount: Int) {
            self.canvasWidth = canvasWidth
            self.canvasHeight = canvasHeight
            self.frameDurations = frameDurations
            self.loopCount = loopCount
        }
    }
}
