import Foundation
import HTTPTypes
import Testing
@testable import AsyncWebImage

@Suite("DownloadCoalescerStateMachine", .timeLimit(.minutes(1)))
struct DownloadCoalescerStateMachineTests {
    typealias Machine = DownloadCoalescerStateMachine<Int>

    private let head = HTTPResponseHead(
        statusCode: 200, headers: [.contentType: "image/png"], expectedContentLength: 6,
        url: URL(string: "http://127.0.0.1/a.png")!
    )

    private func join(_ machine: inout Machine, _ priority: DataRequest.Priority = .normal) -> Machine.SubscriberID {
        guard case .joined(let id, _) = machine.join(priority: priority) else {
            Issue.record("join refused")
            return .max
        }
        return id
    }

    /// Every event `id` can take now, until it would wait or end.
    private func drain(_ machine: inout Machine, _ id: Machine.SubscriberID) -> [String] {
        var events: [String] = []
        for _ in 0..<20 {
            switch machine.next(id) {
            case .event(.head(let head)): events.append("head \(head.statusCode)")
            case .event(.chunk(let data, let accumulated)): events.append("chunk \(String(decoding: data, as: UTF8.self))/\(accumulated.count)")
            case .event(.progress(let received, let expected)): events.append("progress \(received)/\(expected ?? -1)")
            case .event(.completed(let data)): events.append("completed \(String(decoding: data, as: UTF8.self))")
            case .wait: return events + ["wait"]
            case .end: return events + ["end"]
            case .fail(let error): return events + ["fail \(error)"]
            }
        }
        return events
    }

    @Test("a restart drops the bytes so far: every subscriber gets the new head and the new body from its first byte")
    func restart() {
        // Given two subscribers, one of which has read the first body's start
        var machine = Machine(priority: .normal, maxBytes: 100)
        let reader = join(&machine)
        _ = machine.receiveHead(head)
        _ = machine.receive(Data("old".utf8))
        _ = drain(&machine, reader)
        let late = join(&machine)
        // When the body restarts with another representation
        let replacement = HTTPResponseHead(statusCode: 200, headers: [.eTag: "\"v2\""], expectedContentLength: 3, url: head.url)
        _ = machine.restart(replacement)
        _ = machine.receive(Data("new".utf8))
        _ = machine.complete()
        // Then both read the new head and only the new bytes
        let expected = ["head 200", "chunk new/3", "progress 3/3", "completed new", "end"]
        #expect(drain(&machine, reader) == expected)
        #expect(drain(&machine, late) == expected)
        #expect(machine.receivedCount == 3)
    }

    @Test("delivers head, chunk, progress and completion in order")
    func order() {
        // Given a subscriber
        var machine = Machine(priority: .normal, maxBytes: 100)
        let id = join(&machine)
        #expect(drain(&machine, id) == ["wait"])

        // When the head, two chunks and the end arrive, read after each
        _ = machine.receiveHead(head)
        let afterHead = drain(&machine, id)
        _ = machine.receive(Data("abc".utf8))
        let afterFirst = drain(&machine, id)
        _ = machine.receive(Data("def".utf8))
        _ = machine.complete()
        let afterEnd = drain(&machine, id)

        // Then each step delivered exactly what was new
        #expect(afterHead == ["head 200", "wait"])
        #expect(afterFirst == ["chunk abc/3", "progress 3/6", "wait"])
        #expect(afterEnd == ["chunk def/6", "progress 6/6", "completed abcdef", "end"])
    }

    @Test("a late joiner gets the head and every byte so far as one chunk")
    func lateJoiner() {
        // Given a transfer that received two chunks
        var machine = Machine(priority: .normal, maxBytes: 100)
        let early = join(&machine)
        _ = machine.receiveHead(head)
        _ = machine.receive(Data("ab".utf8))
        _ = machine.receive(Data("cd".utf8))
        _ = drain(&machine, early)

        // When another subscriber joins
        let late = join(&machine)

        // Then it catches up at once, then follows
        #expect(drain(&machine, late) == ["head 200", "chunk abcd/4", "progress 4/6", "wait"])
        _ = machine.receive(Data("ef".utf8))
        #expect(drain(&machine, late) == ["chunk ef/6", "progress 6/6", "wait"])
        #expect(drain(&machine, early) == ["chunk ef/6", "progress 6/6", "wait"])
    }

    @Test("a slow subscriber gets the bytes it missed as one chunk")
    func slowSubscriber() {
        // Given a subscriber that read the first chunk
        var machine = Machine(priority: .normal, maxBytes: 100)
        let id = join(&machine)
        _ = machine.receiveHead(head)
        _ = machine.receive(Data("a".utf8))
        _ = drain(&machine, id)

        // When three more arrive before it reads again
        for byte in ["b", "c", "d"] { _ = machine.receive(Data(byte.utf8)) }

        // Then it gets them together, once
        #expect(drain(&machine, id) == ["chunk bcd/4", "progress 4/6", "wait"])
    }

    @Test("waiters are handed back when there is news, and not parked when there already is")
    func waiters() {
        // Given two parked subscribers
        var machine = Machine(priority: .normal, maxBytes: 100)
        let first = join(&machine)
        let second = join(&machine)
        #expect(machine.next(first).isWait && machine.next(second).isWait)
        #expect(machine.suspend(first, 1, isCancelled: false) == .suspended)
        #expect(machine.suspend(second, 2, isCancelled: false) == .suspended)

        // When the head arrives
        let resumed = machine.receiveHead(head)

        // Then both waiters come back, a new suspend sees the news, and a cancelled task is refused
        #expect(Set(resumed) == [1, 2])
        #expect(machine.suspend(first, 3, isCancelled: false) == .ready)
        #expect(machine.suspend(first, 4, isCancelled: true) == .cancelled)
        #expect(machine.receive(Data("x".utf8)).waiters.isEmpty)
    }

    @Test("a failure reaches every subscriber, and the ended transfer refuses joiners")
    func failure() {
        // Given two subscribers, one parked
        var machine = Machine(priority: .normal, maxBytes: 100)
        let first = join(&machine)
        let second = join(&machine)
        _ = machine.suspend(first, 7, isCancelled: false)

        // When the transfer fails
        let resumed = machine.fail(ImageError.httpStatus(500))

        // Then the parked one is resumed, both read the error, and a new subscriber must start afresh
        #expect(resumed == [7])
        #expect(drain(&machine, first) == ["fail HTTP status 500"])
        #expect(drain(&machine, second) == ["fail HTTP status 500"])
        guard case .closed = machine.join(priority: .normal) else {
            Issue.record("a failed transfer accepted a subscriber")
            return
        }
    }

    @Test("the last subscriber leaving cancels; others leaving do not")
    func leaving() {
        // Given three subscribers
        var machine = Machine(priority: .normal, maxBytes: 100)
        let ids = (0..<3).map { _ in join(&machine) }
        _ = machine.suspend(ids[0], 42, isCancelled: false)

        // When they leave one by one
        let (firstAction, firstWaiter) = machine.leave(ids[0])
        let (secondAction, _) = machine.leave(ids[1])
        let (repeatedAction, _) = machine.leave(ids[1])
        let (lastAction, _) = machine.leave(ids[2])

        // Then only the last cancels, and the parked waiter was handed back for cancellation
        #expect(firstWaiter == 42)
        #expect(firstAction.isNone && secondAction.isNone && repeatedAction.isNone)
        #expect(lastAction.isCancel)
        #expect(!machine.isLoading)
        #expect(machine.receive(Data("late".utf8)).waiters.isEmpty)
    }

    @Test("the transfer runs at its highest subscriber's priority")
    func priorities() {
        // Given a low-priority transfer
        var machine = Machine(priority: .low, maxBytes: 100)
        let low = join(&machine, .low)

        // When a normal and a high subscriber join, then the high one leaves
        let normalJoin = machine.join(priority: .normal)
        let highJoin = machine.join(priority: .high)
        let lowAgain = machine.join(priority: .low)
        guard case .joined(_, let toNormal) = normalJoin, case .joined(let high, let toHigh) = highJoin,
              case .joined(_, let unchanged) = lowAgain else {
            Issue.record("join refused")
            return
        }
        let (afterHighLeft, _) = machine.leave(high)
        let (afterLowLeft, _) = machine.leave(low)

        // Then it was promoted twice, not for the low joiner, and demoted to normal when high left
        #expect(toNormal == .normal)
        #expect(toHigh == .high)
        #expect(unchanged == nil)
        guard case .reprioritize(.normal) = afterHighLeft else {
            Issue.record("expected a demotion to normal, got \(afterHighLeft)")
            return
        }
        #expect(afterLowLeft.isNone)
        #expect(machine.priority == .normal)
    }

    @Test("bytes over the limit fail the transfer and are not kept")
    func limit() {
        // Given a limit of 5 bytes
        var machine = Machine(priority: .normal, maxBytes: 5)
        let id = join(&machine)
        _ = machine.receiveHead(head)

        // When 4 and then 2 bytes arrive
        let first = machine.receive(Data("abcd".utf8))
        let second = machine.receive(Data("ef".utf8))

        // Then the second is refused with the typed error
        #expect(first.isSuccess)
        guard case .failure(let error) = second else {
            Issue.record("limit not enforced")
            return
        }
        #expect(error == .tooLarge(.bytes, limit: 5, actual: nil))
        #expect(machine.receivedCount == 4)
        _ = machine.fail(error)
        #expect(drain(&machine, id).last == "fail \(error)")
    }

    @Test("the accumulated bytes survive growth and later appends unchanged")
    func accumulatorSnapshots() {
        // Given an accumulator and a snapshot of its first bytes
        var accumulator = ByteAccumulator(limit: 1 << 20)
        let first = testBytes(5_000, seed: 1)
        let appendedFirst = accumulator.append(first)
        #expect(appendedFirst)
        let snapshot = accumulator.prefix(accumulator.count)

        // When it grows well past its first block and the snapshot is mutated by its holder
        let second = testBytes(200_000, seed: 2)
        let appendedSecond = accumulator.append(second)
        #expect(appendedSecond)
        var mutated = snapshot
        mutated[0] ^= 0xFF

        // Then the snapshot, the whole and a suffix are right, and the mutation stayed private
        #expect(snapshot == first)
        #expect(accumulator.prefix(accumulator.count) == first + second)
        #expect(accumulator.suffix(from: 5_000) == second)
        #expect(accumulator.prefix(10)[0] == first[0])
        let appendedTooMuch = accumulator.append(Data(count: 1 << 20))
        #expect(!appendedTooMuch)
    }
}

extension DownloadCoalescerStateMachine.NextAction {
    var isWait: Bool { if case .wait = self { true } else { false } }
}

extension DownloadCoalescerStateMachine.LeaveAction {
    var isNone: Bool { if case .none = self { true } else { false } }
    var isCancel: Bool { if case .cancelTransfer = self { true } else { false } }
}

extension Result where Success == [Int], Failure == ImageError {
    var waiters: [Int] { (try? get()) ?? [] }
    var isSuccess: Bool { (try? get()) != nil }
}
