import HTTPTypes

/// Header fields from string pairs, in order, repeats kept: test input
/// spelled as a person would type it. A name that is not a field name
/// stops the test (names here are written by hand, not under test).
func httpFields(_ pairs: KeyValuePairs<String, String>) -> HTTPFields {
    HTTPFields(pairs.map { HTTPField(name: HTTPField.Name($0.key)!, value: $0.value) })
}
