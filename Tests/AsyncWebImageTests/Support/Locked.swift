import Synchronization
@testable import AsyncWebImage
import AWILocking

/// A value behind a mutex, as a class so escaping closures and tasks can share it.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Lock<Value>

    init(_ value: Value) { mutex = Lock(value) }

    func withLock<Result: Sendable>(_ body: (inout Value) -> Result) -> Result {
        mutex.withLock { body(&$0) }
    }

    var value: Value { mutex.withLock { $0 } }
}
