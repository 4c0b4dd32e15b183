import CrossmateCore
import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// A small element tree built with XMLParser. Element names keep only their local part, so
/// documents read the same with, without or with unexpected namespaces.
final class MarkupElement {
    let name: String
    let attributes: [String: String]
    private(set) var children: [MarkupElement] = []
    /// Text and child elements in document order, for reading mixed content such as HTML clues.
    private(set) var content: [Content] = []

    enum Content {
        case text(String)
        case element(MarkupElement)
    }

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func append(_ child: MarkupElement) {
        children.append(child)
        content.append(.element(child))
    }

    func append(text: String) { content.append(.text(text)) }

    func child(_ name: String) -> MarkupElement? { children.first { $0.name == name } }
    func children(_ name: String) -> [MarkupElement] { children.filter { $0.name == name } }

    /// The first element named `name` anywhere below this one, depth first.
    func descendant(_ name: String) -> MarkupElement? {
        for child in children {
            if child.name == name { return child }
            if let found = child.descendant(name) { return found }
        }
        return nil
    }

    /// All text below this element, markup removed.
    var text: String {
        content.map { part in
            switch part {
            case let .text(string): string
            case let .element(element): element.text
            }
        }.joined()
    }

    /// Attributes one element may carry: a .jpz cell has about ten.
    static let maximumAttributesPerElement = 64
    /// Elements one document may hold: every square of the largest grid, its clues and words,
    /// four times over.
    static let maximumElements = 4 * Puzzle.maximumSide * Puzzle.maximumSide

    static func parse(_ data: [UInt8]) throws(PuzzleFileError) -> MarkupElement {
        let document = try utf8Document(data)
        try checkBudget(document)
        let builder = Builder()
        let parser = XMLParser(data: Data(withProcessingInstructionData(document)))
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            let line = parser.lineNumber
            throw .notACrossword("the XML is not well formed (near line \(line))")
        }
        return root
    }

    /// Counts elements and each element's attributes in one pass over the bytes, before the XML
    /// parser sees them: libxml2 compares each attribute with every earlier one of its element,
    /// so 200,000 attributes on one element took 20 s. Entity declarations are refused too (a
    /// crossword needs none, and expanding them is another way to make a small file cost much).
    static func checkBudget(_ document: [UInt8]) throws(PuzzleFileError) {
        var elements = 0
        var index = 0
        let count = document.count
        func starts(_ text: StaticString, at position: Int) -> Bool {
            let length = text.utf8CodeUnitCount
            guard position + length <= count else { return false }
            return text.withUTF8Buffer { expected in
                for offset in 0..<length where document[position + offset] != expected[offset] { return false }
                return true
            }
        }
        func skip(past end: StaticString, from position: Int) -> Int {
            var position = position
            while position < count, !starts(end, at: position) { position += 1 }
            return position + end.utf8CodeUnitCount
        }
        while index < count {
            guard document[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            if starts("<!--", at: index) {
                index = skip(past: "-->", from: index + 4)
            } else if starts("<![CDATA[", at: index) {
                index = skip(past: "]]>", from: index + 9)
            } else if starts("<!ENTITY", at: index) {
                throw .malformed("the XML declares entities; a crossword needs none")
            } else if starts("<?", at: index) {
                index = skip(past: "?>", from: index + 2)
            } else if starts("<!", at: index) || starts("</", at: index) {
                index += 2
            } else {
                // A start tag: its attributes are its `=` signs outside quoted values.
                elements += 1
                guard elements <= maximumElements else {
                    throw .malformed("the XML has more than \(maximumElements) elements; no crossword needs so many")
                }
                var attributes = 0
                var quote: UInt8?
                index += 1
                while index < count {
                    let byte = document[index]
                    if let open = quote {
                        if byte == open { quote = nil }
                    } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                    } else if byte == UInt8(ascii: "=") {
                        attributes += 1
                        guard attributes <= maximumAttributesPerElement else {
                            throw .malformed("an XML element has more than \(maximumAttributesPerElement) attributes; a crossword's have a few")
                        }
                    } else if byte == UInt8(ascii: ">") {
                        break
                    }
                    index += 1
                }
                index += 1
            }
        }
    }

    /// The document with a space before the `?>` of every processing instruction that has no
    /// data (`<?name?>` becomes `<?name ?>`). FoundationXML on Linux passes such an instruction's
    /// missing data to `strlen` and crashes the process (found by the .jpz fuzz target); with the
    /// space its data is empty instead. A raw `<?` cannot occur in XML text or attribute values,
    /// so only instructions (and the inside of comments and CDATA, where a space is harmless)
    /// are touched.
    static func withProcessingInstructionData(_ document: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(document.count)
        var index = 0
        while index < document.count {
            output.append(document[index])
            if document[index] == UInt8(ascii: "<"), index + 1 < document.count, document[index + 1] == UInt8(ascii: "?") {
                // Copy `?` and the target name; a `?>` straight after the name gets its space.
                var end = index + 2
                while end < document.count, !Self.endsTarget(document[end]) { end += 1 }
                output.append(contentsOf: document[(index + 1)..<end])
                if end + 1 < document.count, document[end] == UInt8(ascii: "?"), document[end + 1] == UInt8(ascii: ">") {
                    output.append(UInt8(ascii: " "))
                }
                index = end
                continue
            }
            index += 1
        }
        return output
    }

    private static func endsTarget(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "?") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "<") || byte == 0x20 || byte == 0x09
            || byte == 0x0A || byte == 0x0D
    }

    /// The document as valid UTF-8. FoundationXML on Linux traps on element or attribute names
    /// that are not valid UTF-8, so nothing else reaches it: UTF-16 (with a byte order mark) and
    /// documents declared ISO-8859-1 are converted, anything else must already be UTF-8.
    static func utf8Document(_ data: [UInt8]) throws(PuzzleFileError) -> [UInt8] {
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            guard let text = String(data: Data(data), encoding: .utf16) else {
                throw .notACrossword("the XML is not valid UTF-16")
            }
            return Array(withoutEncodingDeclaration(text).utf8)
        }
        if String(validating: data, as: UTF8.self) != nil { return data }
        let prolog = String(decoding: data.prefix(100), as: UTF8.self).lowercased()
        if prolog.hasPrefix("<?xml"), ["iso-8859-1", "latin1", "latin-1", "windows-1252"].contains(where: prolog.contains) {
            let text = String(String.UnicodeScalarView(data.map { Unicode.Scalar($0) }))
            return Array(withoutEncodingDeclaration(text).utf8)
        }
        throw .notACrossword("the XML is not valid UTF-8 text")
    }

    /// Drops the XML declaration, whose encoding no longer applies after conversion.
    private static func withoutEncodingDeclaration(_ text: String) -> String {
        guard text.hasPrefix("<?xml"), let end = text.range(of: "?>") else { return text }
        return String(text[end.upperBound...])
    }

    private final class Builder: NSObject, XMLParserDelegate {
        var root: MarkupElement?
        var stack: [MarkupElement] = []

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName: String?, attributes: [String: String] = [:]
        ) {
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            let element = MarkupElement(name: local, attributes: attributes)
            if let parent = stack.last { parent.append(element) } else if root == nil { root = element }
            stack.append(element)
            // Deeply nested input is not a crossword; stop before it costs memory or stack.
            if stack.count > 64 { parser.abortParsing() }
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            _ = stack.popLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.append(text: string)
        }

        func parser(_ parser: XMLParser, foundCDATA block: Data) {
            stack.last?.append(text: String(decoding: block, as: UTF8.self))
        }
    }
}
