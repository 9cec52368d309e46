// The helpers both test targets use (free loopback ports, the sanitizer
// time scale, `eventually`, a recording log handler) live in AWITestSupport.
@_exported import AWITestSupport
