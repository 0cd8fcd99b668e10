"""Python port of the Multi30k task-1 preprocessing: Moses lowercase.perl | normalize-punctuation.perl -l L
| tokenizer.perl -l L (with escaping, no -a), as in multi30k/dataset scripts/task1-tokenize.sh, which ran
the Moses scripts of commit 3a0631a (12 Dec 2017) kept in scripts/moses-3a0631a/. Standard library only.
Measured: it reproduces 100% of the lines of all ten official Multi30k en/de tok files (nmt.py --self-test).

Ported from moses-smt/mosesdecoder scripts/tokenizer/{lowercase,normalize-punctuation,tokenizer}.perl.
Details that matter for agreement with the published tok files (checked with `nmt.py --self-test`):
- normalize-punctuation.perl has no `binmode :utf8`, so it works on bytes: \\d, \\s and [a-z] (also
  under /i) are ASCII only there; the version of that time maps ‘ ‚ ’ (when not between ASCII letters)
  to '"', and runs the non-Penn block (` -> ', '' -> ' " '). Each line is processed with its trailing
  newline, so the German rule (\\.+)"(\\s*[^<]) also moves a sentence-final ." to ".
- tokenizer.perl of that time has no "split the last word independently" rule: a final "a." (German
  prefix list) or "28." stays one token; it has the two-step comma rule and the ".' at end" rule.
- The "pseudo-space" and French-quote rules match U+00A0 (bytes C2 A0 in the Perl source; sacremoses'
  port has the same), e.g. "nummer<U+00A0>28" -> "nummer 28".
- Perl's Unicode classes are rebuilt from unicodedata: IsAlpha ~ letters (L*), Nl and characters with the
  Lowercase/Uppercase property (Perl's Alphabetic also has some combining marks, irrelevant for en/de);
  IsAlnum = IsAlpha + Nd; IsN = N*; IsLower = the Lowercase property (str.islower on one character).
"""
import re
import sys
import unicodedata

# Non-breaking prefixes: moses-smt/mosesdecoder scripts/share/nonbreaking_prefixes/nonbreaking_prefix.en
# (commit 4da86c360f0586c08fbf654efe50fd6b4e1a6dee) and nonbreaking_prefix.de (the Moses file as copied in
# wangyong1122/dtn, commit 0034998821a108b63fd56ae1ed16e81fa478faeb). "=2" marks #NUMERIC_ONLY# entries
# (no break only when a number follows). The prefixes are matched case-sensitively on lowercased text, so
# only the lowercase ones ever fire; the lists are kept whole for fidelity.
_PREFIXES = {
    "en": """A B C D E F G H I J K L M N O P Q R S T U V W X Y Z Adj Adm Adv Asst Bart Bldg Brig Bros Capt
        Cmdr Col Comdr Con Corp Cpl DR Dr Drs Ens Gen Gov Hon Hr Hosp Insp Lt MM MR MRS MS Maj Messrs
        Mlle Mme Mr Mrs Ms Msgr Op Ord Pfc Ph Prof Pvt Rep Reps Res Rev Rt Sen Sens Sfc Sgt Sr St Supt
        Surg v vs i.e rev e.g Rs No=2 Nos Art=2 Nr pp=2 Jan Feb Mar Apr Jun Jul Aug Sep Oct Nov Dec""",
    "de": """A B C D E F G H I J K L M N O P Q R S T U V W X Y Z a b c d e f g h i j k l m n o p q r s t u v
        w x y z I II III IV V VI VII VIII IX X XI XII XIII XIV XV XVI XVII XVIII XIX XX i ii iii iv v vi vii
        viii ix x xi xii xiii xiv xv xvi xvii xviii xix xx Adj Adm Adv Asst Bart Bldg Brig Bros Capt Cmdr
        Col Comdr Con Corp Cpl DR Dr Ens Gen Gov Hon Hosp Insp Lt MM MR MRS MS Maj Messrs Mlle Mme Mr Mrs Ms
        Msgr Op Ord Pfc Ph Prof Pvt Rep Reps Res Rev Rt Sen Sens Sfc Sgt Sr St Supt Surg Mio Mrd bzw v vs
        usw d.h z.B u.a etc Mrd MwSt ggf d.J D.h m.E vgl I.F z.T sogen ff u.E g.U g.g.A c.-à-d Buchst u.s.w
        sog u.ä Std evtl Zt Chr u.U o.ä Ltd b.A z.Zt spp sen SA k.o jun i.H.v dgl dergl Co zzt usf s.p.a Dkr
        Corp bzgl BSE No Nos Art Nr pp ca Ca"""
          + " " + " ".join(str(i) for i in range(1, 100)),  # ordinals "1." ... "99."
}


def _prefixes(lang):
    out = {}
    for item in _PREFIXES.get(lang, _PREFIXES["en"]).split():  # Moses falls back to English too
        word, _, kind = item.partition("=")
        out[word] = int(kind or 1)
    return out


def _char_classes(**preds):
    """{name: (class body over the BMP, class body over all code points)} (bodies without brackets) of
    the code points c with pred(c). Python's re matches a BMP-only class with a table lookup but scans
    the ranges of a class with astral code points one by one (7x slower), so lines without astral
    characters use the BMP bodies. Planes 4-16 hold no letters or numbers; the scan stops at U+3FFFF."""
    ranges = {k: [] for k in preds}
    for cp in range(0x40000):
        if 0xD800 <= cp <= 0xDFFF:
            continue
        c = chr(cp)
        for k, pred in preds.items():
            if pred(c):
                r = ranges[k]
                if r and r[-1][1] == cp - 1:
                    r[-1][1] = cp
                else:
                    r.append([cp, cp])
    esc = lambda c: f"\\U{c:08x}"
    body = lambda rs: "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in rs)
    bmp = lambda rs: [[a, min(b, 0xFFFF)] for a, b in rs if a <= 0xFFFF]
    return {k: (body(bmp(r)), body(r)) for k, r in ranges.items()}


def _is_alpha(c):
    cat = unicodedata.category(c)
    return cat[0] == "L" or cat == "Nl" or c.islower() or c.isupper()


CLASSES = _char_classes(alpha=_is_alpha, alnum=lambda c: _is_alpha(c) or unicodedata.category(c) == "Nd",
                        num=lambda c: unicodedata.category(c)[0] == "N", lower=str.islower)
PERL_WS = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"  # Perl \s on text
ASCII_WS = "\t\n\x0b\x0c\r "  # Perl \s on bytes
NBSP = "\xa0"

# normalize-punctuation.perl, in order (byte semantics, see above)
_NORM_COMMON = [
    ("\r", ""), (r"\(", " ("), (r"\)", ") "), (" +", " "), (r"\) ([.!:?;,])", r")\1"), (r"\( ", "("),
    (r" \)", ")"), (r"([0-9]) %", r"\1%"), (" :", ":"), (" ;", ";"),
    ("`", "'"), ("''", ' " '),  # the non-Penn block
    ("„", '"'), ("“", '"'), ("”", '"'), ("–", "-"), ("—", " - "), (" +", " "), ("´", "'"),
    ("([a-zA-Z])‘([a-zA-Z])", r"\1'\2"), ("([a-zA-Z])’([a-zA-Z])", r"\1'\2"),
    ("‘", '"'), ("‚", '"'), ("’", '"'), ("''", '"'), ("´´", '"'), ("…", "..."),
    (NBSP + "«" + NBSP, ' "'), ("«" + NBSP, '"'), ("«", '"'),  # French quotes
    (NBSP + "»" + NBSP, '" '), (NBSP + "»", '"'), ("»", '"'),
    (NBSP + "%", "%"), ("nº" + NBSP, "nº "), (NBSP + ":", ":"), (NBSP + "ºC", " ºC"),  # pseudo-spaces
    (NBSP + "cm", " cm"), (NBSP + r"\?", "?"), (NBSP + "!", "!"), (NBSP + ";", ";"), ("," + NBSP, ", "),
    (" +", " "),
]
_NORM_LANG = {
    "en": [(r'"([,.]+)', r'\1"')],
    "cs": [], "cz": [],
    "other": [(',"', '",'), (r'(\.+)"([' + ASCII_WS + r']*[^<])', r'"\1\2')],
}
_NORM_DIGITS = {True: [("([0-9])" + NBSP + "([0-9])", r"\1,\2")],  # de, es, cz, cs, fr
                False: [("([0-9])" + NBSP + "([0-9])", r"\1.\2")]}


def _compile(rules):
    return [(re.compile(p), r) for p, r in rules]


class _TokRules:
    """The tokenizer.perl rules that use Unicode classes, compiled with the given class bodies."""

    def __init__(self, lang, cls):
        alpha, alnum, num, lower = cls["alpha"], cls["alnum"], cls["num"], cls["lower"]
        self.special = re.compile(f"([^{alnum}{PERL_WS}.'`,\\-])")
        self.alpha = re.compile(f"[{alpha}]")
        self.lower_start = re.compile(f"[{lower}]")
        self.comma = _compile([(f"([^{num}]),", r"\1 , "), (f",([^{num}])", r" , \1"),
                               (f"([{num}]),$", r"\1 ,")])
        if lang == "en":  # split contractions right
            quote = [(f"([^{alpha}])'([^{alpha}])", r"\1 ' \2"),
                     (f"([^{alpha}{num}])'([{alpha}])", r"\1 ' \2"),
                     (f"([{alpha}])'([^{alpha}])", r"\1 ' \2"), (f"([{alpha}])'([{alpha}])", r"\1 '\2"),
                     (f"([{num}])'(s)", r"\1 '\2")]
        elif lang in ("fr", "it", "ga", "ca"):  # split contractions left
            quote = [(f"([^{alpha}])'([^{alpha}])", r"\1 ' \2"), (f"([^{alpha}])'([{alpha}])", r"\1 ' \2"),
                     (f"([{alpha}])'([^{alpha}])", r"\1 ' \2"), (f"([{alpha}])'([{alpha}])", r"\1' \2")]
        else:
            quote = [("'", " ' ")]
        self.quote = _compile(quote)


class Pipeline:
    """lowercase | normalize-punctuation -l lang | tokenizer -l lang, one line at a time."""

    def __init__(self, lang):
        self.lang = lang
        self.prefix = _prefixes(lang)
        norm = _NORM_COMMON + _NORM_LANG.get(lang, _NORM_LANG["other"])
        norm += _NORM_DIGITS[lang in ("de", "es", "cz", "cs", "fr")]
        self.norm = _compile(norm)
        self.ws_run = re.compile(f"[{PERL_WS}]+")
        self.ws_one = re.compile(f"[{PERL_WS}]")
        self.blank = re.compile(f"[{PERL_WS}]*")
        self.rules = [_TokRules(lang, {k: v[astral] for k, v in CLASSES.items()}) for astral in (0, 1)]
        self.astral = re.compile("[\U00010000-\U0010ffff]")
        self.dots = re.compile(r"\.([.]+)")
        self.dot1, self.dot2 = re.compile(r"DOTMULTI\.([^.])"), re.compile(r"DOTMULTI\.")

    def lowercase(self, line):
        low = line.lower()
        if "Σ" in line:  # Perl lc has no final-sigma rule
            low = "".join(c.lower() for c in line)
        return low

    def normalize(self, line):
        """line: one line with its trailing newline (the Perl script sees it too)."""
        for pat, rep in self.norm:
            line = pat.sub(rep, line)
        return line

    def tokenize(self, line):
        if self.blank.fullmatch(line):  # whitespace-only lines are printed unchanged
            return line
        text = " " + (line[:-1] if line.endswith("\n") else line) + " "  # chomp
        text = self.ws_run.sub(" ", text)
        text = re.sub("[\x00-\x1f]", "", text)
        text = re.sub(" +", " ", text)
        text = text[1:] if text.startswith(" ") else text
        text = text[:-1] if text.endswith(" ") else text
        r = self.rules[1 if self.astral.search(text) else 0]
        text = r.special.sub(r" \1 ", text)  # separate out all "other" special characters
        if ".." in text:  # multi-dots stay together
            text = self.dots.sub(r" DOTMULTI\1", text)
            while "DOTMULTI." in text:
                text = self.dot1.sub(r"DOTDOTMULTI \1", text)
                text = self.dot2.sub("DOTDOTMULTI", text)
        # (the rules below start with a large character class, which is slow in Python's re: skip them
        # when the character they are about is absent)
        if "," in text:  # separate "," except within numbers (two-step version)
            for pat, rep in r.comma:
                text = pat.sub(rep, text)
        if "'" in text:  # contractions
            for pat, rep in r.quote:
                text = pat.sub(rep, text)
        words = self.ws_one.split(text)
        while words and not words[-1]:  # Perl's split drops trailing empty fields
            words.pop()
        out = []
        for i, word in enumerate(words):
            if len(word) > 1 and word.endswith("."):
                pre, nxt = word[:-1], words[i + 1] if i + 1 < len(words) else None
                kind = self.prefix.get(pre, 0)
                if ("." in pre and r.alpha.search(pre)) or kind == 1 or \
                        (nxt is not None and r.lower_start.match(nxt)):
                    pass
                elif kind == 2 and nxt is not None and re.match("[0-9]", nxt):
                    pass
                else:
                    word = pre + " ."
            out.append(word + " ")
        text = re.sub(" +", " ", "".join(out))
        text = text[1:] if text.startswith(" ") else text
        text = text[:-1] if text.endswith(" ") else text
        text = re.sub(r"\.' ?$", " . ' ", text, count=1)
        while "DOTDOTMULTI" in text:
            text = text.replace("DOTDOTMULTI", "DOTMULTI.")
        text = text.replace("DOTMULTI", ".")
        for a, b in (("&", "&amp;"), ("|", "&#124;"), ("<", "&lt;"), (">", "&gt;"), ("'", "&apos;"),
                     ('"', "&quot;"), ("[", "&#91;"), ("]", "&#93;")):
            text = text.replace(a, b)
        return text + "\n"

    def __call__(self, line):
        """One input line (with or without its newline) -> the tok line with a newline."""
        if not line.endswith("\n"):
            line += "\n"
        return self.tokenize(self.normalize(self.lowercase(line)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: moses_tok.py LANG < raw.txt > tok.txt   (lowercase, normalize, tokenize)")
    p = Pipeline(sys.argv[1])
    for raw in sys.stdin.buffer.read().decode("utf-8").split("\n")[:-1]:
        sys.stdout.write(p(raw))
