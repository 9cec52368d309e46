#if AWI_THREAD_SANITIZER
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex around a value that ThreadSanitizer can see: the package's one
/// lock type (the library, the loopback server and the tests use it), `Synchronization.Mutex` in every normal build and this
/// pthread-backed stand-in only when compiled with `-DAWI_THREAD_SANITIZER`
/// (`scripts/sanitize thread` passes it).
///
/// Why it exists: on Linux, `Mutex` takes its contended path through
/// `FUTEX_LOCK_PI`/`FUTEX_UNLOCK_PI` inside the uninstrumented
/// `libswiftSynchronization.so`, so ThreadSanitizer sees no ordering between
/// two holders of a contended `Mutex` and reports the state it guards as a
/// race (4 threads counting under `Mutex.withLock` count exactly, and TSan
/// still reports one). ThreadSanitizer intercepts `pthread_mutex_lock` and
/// `pthread_mutex_unlock`, so this version gives it the happens-before edges
/// and leaves only real races to report.
///
/// - Important: Use it as `Mutex`: `Lock(value)`, then `withLock`. Files that
///   call `withLock` still `import Synchronization`, which the normal build
///   needs for `Mutex`'s members.
package struct Lock<Value: ~Copyable>: ~Copyable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    package init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value; the same contract as
    /// `Mutex.withLock`.
    package borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }

    /// Orders the calling thread after every earlier holder of the lock, as
    /// ThreadSanitizer sees it (see the other branch of this file for why
    /// the normal build needs nothing).
    package borrowing func observeHandOff() {
        pthread_mutex_lock(mutex)
        pthread_mutex_unlock(mutex)
    }
}

// Safe: both pointers are allocated once in `init` and freed once in
// `deinit` (the type is ~Copyable, so exactly one owner runs it, after every
// borrow has ended); the value is reached only through `withLock`, under the
// pthread mutex; and it comes in and goes out as `sending`, so no reference
// to it survives outside the lock. The same reasoning (and conformance) as
// `Mutex`'s.
extension Lock: @unchecked Sendable where Value: ~Copyable {}
#else
package import Synchronization

/// The package's one lock type: `Synchronization.Mutex` itself, so normal
/// builds are unchanged. With `-DAWI_THREAD_SANITIZER` (`scripts/sanitize
/// thread`) it is a pthread-backed stand-in instead, because ThreadSanitizer
/// cannot see the futex-PI handoff of `Mutex`'s contended path on Linux and
/// reports the state it guards as races. See the other branch of this file.
package typealias Lock<Value: ~Copyable> = Mutex<Value>

extension Mutex where Value: ~Copyable {
    /// Tells ThreadSanitizer that what the last holder of the lock did
    /// happened before what the caller does next; nothing at all in this
    /// (normal) build, where the hardware already orders it.
    ///
    /// Who calls it: a consumer resumed through an `UnsafeContinuation` that
    /// its producer took out of the lock's state and resumed after unlocking.
    /// When the resume comes before the consumer has suspended, the Swift
    /// runtime hands the result over through its own atomics, in the
    /// uninstrumented `libswift_Concurrency.so`, and ThreadSanitizer sees no
    /// edge from producer to consumer: it reported the pixels of a decoded
    /// image, written before the hand-off, as racing with the consumer's read
    /// (the soak test, about once in 15 runs). Taking the lock once more after
    /// the resume gives it that edge, because the producer released the lock
    /// before resuming.
    @inline(__always)
    package borrowing func observeHandOff() {}
}
#endif
