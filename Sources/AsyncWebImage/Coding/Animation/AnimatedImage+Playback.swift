extension AnimatedImage {
    /// The frames of an ``AnimatedImage`` as they play: each one yielded at
    /// its time on a `Clock`, the Linux replacement for `SDAnimatedImageView`.
    ///
    /// Frame 0 comes at once; each later frame when the ones before it have
    /// been shown for their ``AnimatedImage/frameDurations`` (deadlines add up
    /// from the start, so a slow consumer does not make the animation drift,
    /// and frames it is late for are still yielded, in order). After the last
    /// frame the animation starts over until it has played
    /// ``AnimatedImage/loopCount`` times (forever for 0); the sequence ends
    /// once the last frame's time is over. It also ends (returns `nil`) when
    /// the iterating task is cancelled. A frame that cannot be decoded ends it
    /// with that ``ImageError``.
    ///
    /// A frame that is not in the buffer is decoded holding a permit of the
    /// animation's loader's CPU limit (a heavy one for a canvas over its
    /// ``ImageLoader/CPULimits/heavyPixelCount``), like any decode of the loader.
    public struct Playback<C: Clock>: AsyncSequence, Sendable where C.Duration == Duration {
        /// One frame as it is shown.
        public typealias Element = AnimatedImage.Frame

        let animation: AnimatedImage
        let clock: C

        /// Makes the iterator; each iteration plays the animation from frame 0.
        public func makeAsyncIterator() -> Iterator {
            Iterator(animation: animation, clock: clock)
        }

        /// Waits for each frame's time, then decodes (or takes from the buffer) and yields it.
        public struct Iterator: AsyncIteratorProtocol {
            let animation: AnimatedImage
            let clock: C
            private var index = 0
            private var playsDone = 0
            private var deadline: C.Instant?
            private var finished = false

            init(animation: AnimatedImage, clock: C) {
                self.animation = animation
                self.clock = clock
            }

            /// The next frame at its time, or `nil` at the end or on cancellation.
            public mutating func next() async throws -> AnimatedImage.Frame? {
                guard !finished, !Task.isCancelled, animation.frameCount > 0 else { return end() }
                if index == animation.frameCount {
                    index = 0
                    playsDone += 1
                    if animation.loopCount != 0 && playsDone >= animation.loopCount {
                        await sleepUntilDeadline()
                        return end()
                    }
                }
                if deadline == nil { deadline = clock.now } else { await sleepUntilDeadline() }
                guard !Task.isCancelled else { return end() }
                let image: Image
                do {
                    image = try await frame(at: index)
                } catch is CancellationError {
                    return end()
                } catch {
                    finished = true
                    throw error
                }
                let duration = animation.frameDurations[index]
                let frame = AnimatedImage.Frame(index: index, loop: playsDone, image: image, duration: duration)
                deadline = deadline?.advanced(by: duration)
                index += 1
                return frame
            }

            /// Frame `index` from the buffer, or decoded under a permit of the
            /// animation's limiter.
            private func frame(at index: Int) async throws -> Image {
                if let buffered = animation.bufferedFrame(at: index) { return buffered }
                let animation = animation
                let limiter = animation.limiter
                return try await limiter.withPermit(heavy: limiter.isHeavy(animation.canvasSize)) {
                    try animation.decodeFrame(at: index)
                }
            }

            private mutating func sleepUntilDeadline() async {
                guard let deadline else { return }
                // Cancellation wakes the sleep early; the caller checks for it.
                try? await clock.sleep(until: deadline, tolerance: nil)
            }

            private mutating func end() -> AnimatedImage.Frame? {
                finished = true
                return nil
            }
        }
    }
}

extension AnimatedImage {
    /// One frame of an animation: as it plays (``Playback``), or in ``allFrames()``.
    public struct Frame: Sendable {
        /// The frame's index in the animation.
        public let index: Int
        /// How many times the animation had played before this frame (0 in the first play, and in ``allFrames()``).
        public let loop: Int
        /// The full-canvas frame.
        public let image: Image
        /// How long it stays on screen (browsers' rule applied).
        public let duration: Duration
    }

    /// Plays the animation on `clock`: see ``AnimatedImage/Playback``.
    ///
    /// ```swift
    /// for try await frame in animation.frames(clock: ContinuousClock()) {
    ///     show(frame.image)
    /// }
    /// ```
    public func frames<C: Clock>(clock: C) -> AnimatedImage.Playback<C> where C.Duration == Duration {
        AnimatedImage.Playback(animation: self, clock: clock)
    }

    /// Plays the animation on the continuous clock: see ``AnimatedImage/Playback``.
    public func frames() -> AnimatedImage.Playback<ContinuousClock> {
        frames(clock: ContinuousClock())
    }
}
