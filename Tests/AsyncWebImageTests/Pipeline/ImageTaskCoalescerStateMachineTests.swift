import Testing
@testable import AsyncWebImage

/// Every transition of the task coalescer's table, on plain values: sinks
/// are names, work is a number, no task or channel is involved.
@Suite("ImageTaskCoalescerStateMachine")
struct ImageTaskCoalescerStateMachineTests {
    typealias Machine = ImageTaskCoalescerStateMachine<String, String, Int>

    private func preview(_ value: UInt8) throws -> Image {
        try Image(width: 1, height: 1, pixelFormat: .rgba8, pixels: [value, value, value, 255])
    }

    @Test("the first subscriber starts work; a second joins it; both keys count per result")
    func subscribeStartsThenJoins() {
        var machine = Machine()
        guard case .start(let generation) = machine.subscribe("a", resultKey: "r", id: 1, sink: "one", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("first subscriber did not start work"); return
        }
        guard case .joined(nil, nil) = machine.subscribe("a", resultKey: "r", id: 2, sink: "two", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("second subscriber did not join"); return
        }
        // A second task key for the same result (another request variant) is work of its own.
        guard case .start(let other) = machine.subscribe("b", resultKey: "r", id: 3, sink: "three", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("another key did not start work"); return
        }
        #expect(generation != other)
        #expect(machine.started == 2)
        #expect(machine.entries["a"]?.subscribers.count == 2)
        #expect(machine.inFlightResults["r"] == 2)
    }

    @Test("progress goes to progress subscribers, previews to preview subscribers, and late joiners get the last of each they want")
    func broadcastAndLateJoiners() throws {
        var machine = Machine()
        guard case .start(let generation) = machine.subscribe("a", resultKey: "r", id: 1, sink: "stream", wantsPreviews: true, wantsProgress: true) else {
            Issue.record("no start"); return
        }
        _ = machine.subscribe("a", resultKey: "r", id: 2, sink: "final-only", wantsPreviews: false, wantsProgress: false)
        let waiterJoined = machine.join("a", id: 3, sink: "waiter")
        #expect(waiterJoined)

        let progressSinks = machine.broadcast("a", generation: generation, .progress(received: 10, expected: 100))
        #expect(progressSinks == ["stream"])
        let image = try preview(7)
        let previewSinks = machine.broadcast("a", generation: generation, .preview(image))
        #expect(previewSinks == ["stream"])

        guard case .joined(let progress, let lastPreview) = machine.subscribe("a", resultKey: "r", id: 4, sink: "late", wantsPreviews: true, wantsProgress: true) else {
            Issue.record("late subscriber did not join"); return
        }
        guard case .progress(received: 10, expected: 100)? = progress else {
            Issue.record("late joiner missed the progress: \(String(describing: progress))"); return
        }
        #expect(lastPreview == image)
        guard case .joined(nil, nil) = machine.subscribe("a", resultKey: "r", id: 5, sink: "late-quiet", wantsPreviews: false, wantsProgress: false) else {
            Issue.record("a quiet late joiner was sent events it does not want"); return
        }
    }

    @Test("wantsPreviews follows the preview subscribers in and out, and is false for other generations")
    func wantsPreviewsFollowsSubscribers() {
        var machine = Machine()
        guard case .start(let generation) = machine.subscribe("a", resultKey: "r", id: 1, sink: "plain", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no start"); return
        }
        #expect(!machine.wantsPreviews("a", generation: generation))
        _ = machine.subscribe("a", resultKey: "r", id: 2, sink: "previews", wantsPreviews: true, wantsProgress: true)
        #expect(machine.wantsPreviews("a", generation: generation))
        #expect(!machine.wantsPreviews("a", generation: generation + 1))
        guard case .removed("previews") = machine.leave("a", id: 2) else {
            Issue.record("leave did not return the sink"); return
        }
        #expect(!machine.wantsPreviews("a", generation: generation))
    }

    @Test("a waiter joins only running work and never gets progress")
    func waiterJoinsRunningWorkOnly() {
        var machine = Machine()
        let joinedIdle = machine.join("a", id: 1, sink: "waiter")
        #expect(!joinedIdle)
        #expect(machine.entries.isEmpty)
        guard case .start(let generation) = machine.subscribe("a", resultKey: "r", id: 2, sink: "stream", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no start"); return
        }
        let waiterJoined = machine.join("a", id: 3, sink: "waiter")
        #expect(waiterJoined)
        let sinks = machine.broadcast("a", generation: generation, .progress(received: 1, expected: nil))
        #expect(sinks == ["stream"])
    }

    @Test("the last subscriber out cancels the recorded work and clears the result's in-flight count")
    func lastLeaveCancels() {
        var machine = Machine()
        guard case .start(let generation) = machine.subscribe("a", resultKey: "r", id: 1, sink: "one", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no start"); return
        }
        _ = machine.subscribe("a", resultKey: "r", id: 2, sink: "two", wantsPreviews: false, wantsProgress: true)
        guard case .recorded = machine.record(42, for: "a", generation: generation) else {
            Issue.record("work not recorded"); return
        }
        guard case .removed("one") = machine.leave("a", id: 1) else { Issue.record("first leave"); return }
        #expect(machine.inFlightResults["r"] == 1)
        guard case .removedLast("two", cancel: 42?) = machine.leave("a", id: 2) else { Issue.record("last leave did not cancel"); return }
        #expect(machine.entries["a"] == nil)
        #expect(machine.inFlightResults["r"] == nil)
        guard case .none = machine.leave("a", id: 2) else { Issue.record("a second leave did something"); return }
    }

    @Test("work recorded after everyone left, or for an older generation, is cancelled")
    func lateRecordCancels() {
        var machine = Machine()
        guard case .start(let first) = machine.subscribe("a", resultKey: "r", id: 1, sink: "one", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no start"); return
        }
        // The only subscriber leaves before the work's task is recorded.
        guard case .removedLast("one", cancel: nil) = machine.leave("a", id: 1) else { Issue.record("leave"); return }
        guard case .cancel = machine.record(1, for: "a", generation: first) else { Issue.record("orphan kept"); return }
        // New work for the same key: the old generation's record is refused, the new one's kept.
        guard case .start(let second) = machine.subscribe("a", resultKey: "r", id: 2, sink: "two", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no second start"); return
        }
        guard case .cancel = machine.record(1, for: "a", generation: first) else { Issue.record("stale record kept"); return }
        guard case .recorded = machine.record(2, for: "a", generation: second) else { Issue.record("record"); return }
        #expect(machine.entries["a"]?.work == 2)
    }

    @Test("finish hands every subscriber over in arrival order and ends the entry; a stale finish touches nothing")
    func finishInArrivalOrder() {
        var machine = Machine()
        guard case .start(let first) = machine.subscribe("a", resultKey: "r", id: 5, sink: "e", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no start"); return
        }
        for (id, name) in [(9, "i"), (2, "b"), (7, "g")] {
            _ = machine.subscribe("a", resultKey: "r", id: UInt64(id), sink: name, wantsPreviews: false, wantsProgress: true)
        }
        let waiterJoined = machine.join("a", id: 1 << 63 | 1, sink: "waiter")
        #expect(waiterJoined)
        let finished = machine.finish("a", generation: first).map(\.sink)
        #expect(finished == ["b", "e", "g", "i", "waiter"])
        #expect(machine.entries["a"] == nil)
        #expect(machine.inFlightResults["r"] == nil)

        guard case .start(let second) = machine.subscribe("a", resultKey: "r", id: 10, sink: "new", wantsPreviews: false, wantsProgress: true) else {
            Issue.record("no restart"); return
        }
        let staleFinish = machine.finish("a", generation: first)
        let staleBroadcast = machine.broadcast("a", generation: first, .progress(received: 1, expected: nil))
        #expect(staleFinish.isEmpty)
        #expect(staleBroadcast.isEmpty)
        #expect(machine.entries["a"]?.generation == second)
        #expect(machine.entries["a"]?.subscribers.count == 1)
    }
}
