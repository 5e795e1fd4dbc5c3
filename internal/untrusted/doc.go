// Package untrusted keeps text a server sent from acting as anything but
// text where the host places it: in what the host composes for a model (the
// system prompt, the answers of the host's own tools) and in what the
// command prints for a person.
//
// The rule is one, so that the model and the person are held by the same
// promise: [Text] removes every character a reader cannot see (terminal
// escape sequences whole, control characters but "\n" and "\t", and the
// Unicode default-ignorable characters: format characters such as bidi
// controls and zero-width spaces, variation selectors, tag characters), and
// makes "\n" the only line break, so a caller that gives each line of a
// server's text a prefix knows that no line escapes it; [Quote] gives each
// the prefix "> ", the one the agent and the gateway use. [Line] is the
// same text on one line. Neither bounds the length: each caller cuts to the bound
// of where the text goes, with [Cut], which marks a cut.
//
// What is kept is the text's words: no look-alike of a delimiter is chased
// here. A host that must keep a server's text inside a block makes the block
// one the text cannot end (a prefix on every line), rather than hoping to
// recognise every spelling of its end.
//
// Options: none; [Cut]'s bound is its argument, and a bound of zero or less
// cuts nothing.
package untrusted
