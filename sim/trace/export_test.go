package trace

// WholeHash is wholeHash for the external tests.
var WholeHash = wholeHash
