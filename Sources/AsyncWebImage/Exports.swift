// The library's API speaks swift-http-types: `DataRequest.headers`,
// `HTTPResponseHead.headers`, `RequestModifier.headers(_:)`,
// `CacheKeyFilter.ignoredHeaders` are `HTTPFields` and `HTTPField.Name`.
// Re-exported (as Hummingbird does), so that `import AsyncWebImage` is all a
// user needs to set a header — no package dependency or import of their own,
// and always the version the library was built with.
@_exported public import HTTPTypes
