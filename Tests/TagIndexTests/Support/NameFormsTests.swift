import Testing

@testable import ClassifySupport

/// The byte-wise ASCII forms agree with the Unicode ones on every ASCII text.
struct NameFormsTests {
    @Test func namesKeepTheirDocumentedForms() {
        #expect(NameForms.normalized("  Hot_Dog ") == "hot dog")
        #expect(NameForms.normalized("Golden_Retriever") == "golden retriever")
        #expect(NameForms.normalized("a\t\tB\r\nc\u{0B}d\u{0C}e") == "a b c d e")
        #expect(NameForms.tokenForm("jack-o'-lantern") == "jack o lantern")
        #expect(NameForms.tokenForm("St. Bernard") == "st bernard")
        #expect(NameForms.words("St. Bernard") == ["st", "bernard"])
        #expect(NameForms.normalized("") == "" && NameForms.tokenForm("--") == "")
        // Other scripts take the Unicode path.
        #expect(NameForms.normalized("Café_CRÈME") == "café crème")
        #expect(NameForms.tokenForm("Café-Crème\u{00A0}au lait") == "café crème au lait")
    }

    @Test(arguments: [1, 2, 3, 4, 5])
    func asciiFormsMatchTheUnicodeForms(seed: Int) {
        var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        // Letters, digits, punctuation, every ASCII whitespace and control byte, weighted to repeat.
        let alphabet = Array("aZz09_ -'.\t\n\r\u{0B}\u{0C}\u{01}\u{7F}Qm&/()".unicodeScalars)
        for _ in 0..<2_000 {
            let length = Int(next() % 24)
            let text = String(String.UnicodeScalarView((0..<length).map { _ in alphabet[Int(next() % UInt64(alphabet.count))] }))
            #expect(NameForms.normalized(text) == NameForms.unicodeNormalized(text), "\(text.debugDescription)")
            #expect(NameForms.tokenForm(text) == NameForms.unicodeTokenForm(text), "\(text.debugDescription)")
        }
    }
}
