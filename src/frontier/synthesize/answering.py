"""The sentences of the retrieved pages that answer a question, found by code.

A question asks for a kind of answer: a number with its unit ("how much", "how long"), an
accelerator or cluster ("which GPUs"), model names ("which models"), a cause ("why"), a setting
("what block size", "how is it set"), a limitation, a mechanism ("how does"). A sentence answers
when it holds that kind, speaks of the question's subject (it, its neighbours or its paper name
the system asked about), says something beyond the question's own words, and is close to the
question in meaning (the shipped sentence embeddings) and in its rarer words (weighted by how few
of the candidates hold them). A table's row is read as a row: its label, its cells under the
column heads, and the table's caption. Headings, author lines, reference entries and fragments
are no answer. (Figures on the retrieval questions are in BENCHMARKS.md.)"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from frontier.curate.claims import reads_as_prose
from frontier.curate.support import content_stems, names_in
from frontier.synthesize.bundle import Bundle
from frontier.synthesize.citations import strip_citations
from frontier.synthesize.meaning import NUMBER_WORDS, says_nothing
from frontier.synthesize.retrieve import content_words
from frontier.text import (
    LIST_BULLET,
    NumberShape,
    any_word,
    find_numbers,
    prose_sentences,
    split_words,
)

ANSWERING_SHOWN = 3
MIN_CHARS = 25
MAX_CHARS = 480
NEIGHBOURS = 1  # sentences on each side that may name the subject for a sentence
# weights of what makes a sentence an answer, fitted listwise on the retrieval questions (the
# evidence sentence against the others of its bundle's pages; see BENCHMARKS.md)
W_WORDS = 2.7  # the question's words, each weighted by how few candidates hold it
W_FOCUS = 3.5  # the same, without the words that name the subject (title, names)
W_NEAR = 3.3  # the most of those words within one run of PROXIMITY_WORDS
W_MEANING = 3.8  # cosine of the sentence's embedding with the question's
W_BESIDE = 0.8  # the best cosine of the sentences beside it
W_KIND = 2.5  # holds the kind of answer asked for
W_LACKS_KIND = -2.0  # the question asks for a specific kind (SPECIFIC_KINDS) it does not hold
W_LACKS_CAUSE = -1.0  # a why-question, and the sentence gives no reason (says what, not why)
SPECIFIC_KINDS = frozenset({"hardware", "quantity", "model"})
W_NAMED_KIND = (
    2.0  # more for naming an accelerator or a model when asked which: a name is the answer
)
NAMED_KINDS = frozenset({"hardware", "model"})
PROSE_KINDS = frozenset({"mechanism", "cause", "limitation"})
W_ASKED = 1.3  # holds the words right after the question's "what" / "which"
W_SUBJECT = 0.45  # the question's names in it, beside it or in its paper's title
W_NEW_NUMBER = 1.2  # a number the question does not give
W_SUPERLATIVE = 1.5  # the question asks for the best / largest / most, and the sentence says one
W_SYMBOL = W_KIND  # the value asked, given by a symbol a sentence beside it names in its words
W_SETUP = 1.6  # "we use / set / evaluate ...": how a paper states its setting (not which was best)
W_CAPTION = -1.9
W_POINTER = -1.5  # points at a figure or a section for its content instead of stating it
W_DIGITS = -0.4  # share of its tokens holding digits: a plot's axis read as a sentence
W_LENGTH = -1.2  # per 200 characters
W_FORMULA = -1.5  # a formula read as a sentence: its symbols say nothing without its notation
FORMULA_SYMBOLS = 3  # relation and set symbols in a sentence past which it is a formula
RANK_PENALTY = 0.25  # per place the sentence's source ranks below the first
PROXIMITY_WORDS = 12
SHOWN_MARGIN = 2.0  # a second or third sentence is shown when it scores this close to the best
COUNTED_KIND = 0.6  # a cluster told by its size, not by its accelerator ("4 nodes and 32 GPUs")
GENERIC_KIND = 0.4  # what an answer of a kind counts when it only names it ("GPUs", "a cluster")
# words that frame a question ("evaluated on", "did they use") rather than name its topic, as
# `content_words` cuts them (five letters)
_FRAME = frozenset(
    [
        "evalu",
        "used",
        "using",
        "run",
        "ran",
        "measu",
        "repor",
        "perfo",
        "exper",
        "setup",
        "show",
        "shown",
        "propo",
        "paper",
        "autho",
        "achie",
        "study",
        "studi",
        "work",
        "works",
        "get",
        "gets",
        "give",
        "gives",
        "make",
        "makes",
    ]
)
FRAME_WEIGHT = 0.3
PREMISE_WEIGHT = 0.4  # a word only of the question's premise ("When X runs out of memory, ...")
# what a question grants before it asks: "When/If/Besides ..., how ..." or "...; how ..."
_PREMISE = re.compile(
    r"^(?:(?:when|if|once|besides|given|after|before|while|although|since|because|unlike|"
    r"apart from|other than)\b[^,;?]{8,}[,;]|[^;?]{12,};)\s*(?=\w)",
    re.IGNORECASE,
)
_CITATION_CELL = re.compile(r"^\[\d+(?:[,–-]\s?\d+)*\]$")
_CELL_NUMBER = re.compile(r"^[±~≈<>(]?[-+]?\d[\d,.]*(?:[%×x]|[KMGT]?B|ms|s)?[)*†]?$")
_UNIT_CELL = re.compile(
    r"^(?:days?|hours?|hrs?|h|minutes?|mins?|seconds?|s|ms|µs|us|GB|MB|KB|TB|GiB|MiB|%|×|x|"
    r"tokens?/s|tok/s|req/s|GPUs?|bits?)[),;]?$"
)
_READ_ROW = re.compile(r"^(?:Table|Tab\.|Figure|Fig\.)(?:\s*\d+)? row[,:]", re.IGNORECASE)
_CAPTION = re.compile(r"^(?:Table|Tab\.|Figure|Fig\.)\s*\d+[.:]", re.IGNORECASE)
_HEADING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[IVX]+\.)\s+[A-Z][\w -]{0,60}$")
_LEADING_HEADING = re.compile(
    r"^(?:\d+(?:\.\d+){0,3}\.?|[A-Z]\.\d+(?:\.\d+)*)\s+(?:[A-Z]|[a-z]+[A-Z])[^.!?]{2,80}?\s+"
    r"(?=(?:We|In|The|This|These|Our|To|For|As|An?|Since|While|When|Given|Here|Unlike|Although"
    r"|However|Previous|Prior|Most|Many|Existing|Recent|Despite|Because|One|Consider|Let|Figure"
    r"|Table|First|Finally|Next|Each|After|Before|Once|If|With|By|At|On|Using|Following"
    r"|Considering|Assuming|Suppose|Note)\s)"
)
_RUN_IN_HEADING = re.compile(
    r"^(?!(?:Table|Figure|Note)\b)[A-Z][a-z]+(?:\s+(?:and|of|&|[a-z]+)){0,4}:\s+(?=[A-Z])"
)
# a paragraph's heading with no number run into its first sentence, which opens with a capital
# "We", "Our", "In our" or "In Figure" where no sentence can have one ("Serving 70B models with
# tensor parallelism We run ..."): at most HEADING_WORDS words, none ending a sentence
_UNNUMBERED_HEADING = re.compile(
    r"^(?:\d+(?:\.\d+){0,3}\.?\s+)?[A-Z](?:[^\s.!?]|[.!?](?=\S))*(?:\s+(?:[^\s.!?]|[.!?](?=\S))+){0,11}"
    r"(?<=[a-z0-9)])\s+(?=(?:We|Our|In (?:our|this|Figure|Table|Section|Fig\.))\s)"
)
# the next section's number and heading run onto a sentence's end, after its footnote mark:
# "... per process.2 5.1.1 Pre-reserving virtual memory."
_TRAILING_HEADING = re.compile(r"(?<=[.!?])\d{0,2}\s+\d+(?:\.\d+)+\.?\s+[A-Z][^.!?]{0,80}[.!?]?$")
# a footnote mark or a section number left before the sentence: "3 Table 3 shows that ..."
# a page number or a footnote's mark the page's lines ran into a sentence: "1 Table 2 …", "1 It
# is notable that …" (a sentence of prose never opens with a bare number before such a word)
_STRAY_NUMBER = re.compile(
    r"^\d{1,2}\s+(?=(?:Table|Tab\.|Figure|Fig\.)\s*\d|(?:It|The|We|This|These|Our|In|For|See"
    r"|Note|Code|Here|Such|Also|All|Available|Unlike|Although|However)\s)"
)
_REFERENCE = re.compile(
    r"^\[\d+\]\s|\bIn Proceedings\b|\barXiv preprint\b|\bpp\. \d"
    r"|\bProc\. of\b|\bURL\s|https?://|\bdoi:"
)
# a title block flattened into the abstract: "... Decoding Yaniv Leviathan * 1 ... Abstract ..."
_TITLE_BLOCK = re.compile(
    r"[^.!?]\s+Abstract\s+[A-Z]|(?:\b[A-Z][a-z]+\s[A-Z][a-z]+\s?[*†‡]\s?\d?\s){2}"
)
# a section number and a heading with no verb of a sentence: "3.4 Analysis Better data-efficiency ..."
_NUMBERED_START = re.compile(r"^(?:\d+(?:\.\d+){0,3}\.?|[A-Z]\.\d+(?:\.\d+)*)\s+[A-Z]")
_FINITE = (
    r"\b(?:is|are|was|were|be|been|being|has|have|had|do|does|did|can|could|will|would|may|might"
    r"|must|should|we|our|it|they|this|these)\b"
)
_VERB_LIKE = re.compile(rf"{_FINITE}|\b\w{{3,}}(?:ed|es|ing)\b", re.IGNORECASE)
_FINITE_VERB = re.compile(_FINITE, re.IGNORECASE)
# a bulleted list's items, flattened into one line; a dash opens an item only after an item's
# end ("… on A100 GPUs. – ZeroQuant plus LKD …"), elsewhere it sets off a phrase
_BULLET = re.compile(rf"{LIST_BULLET.pattern}|(?<=[.!?;:])\s+[–—]\s+(?=[A-Z])")
_ITEM_ONE = re.compile(r"\((?:1|i|a)\)\s")
_ITEM_TWO = re.compile(r"\((?:2|ii|b)\)\s")
_SECTION_NUMBER = re.compile(r"\d+(?:\.\d+){0,3}\.?")
_HEADING_JOINERS = frozenset({"and", "of", "for", "the", "in", "on", "with", "to", "a", "an", "&"})
CHAIN_WORDS = 14  # words from the start within which a second section number makes a chain
HEADING_WORDS = 12  # a numbered run of at most this many words with no verb is a heading
# so is a shorter one with no finite verb: "7 Related Work LLM serving optimizations."
SHORT_HEADING_WORDS = 7
RUN_IN_WORDS = 8  # words up to which a sentence without a verb is a paragraph's run-in heading
_TABLE_HEAD = re.compile(r"[↑↓]")
_FORMULA = re.compile(r"[=∑∏∫∼≤≥∈∀∃→|]|:=")
# two pieces of text glued where a column or a page broke: a sentence's end, then the lower-case
# middle of another ("See § 5.1 for details. reduction or latency improvement depends on …")
_GLUED = re.compile(
    r"\b(?!(?:etc|resp|approx|incl|cf|vs|al|fig|figs|eq|eqs|sec|ch|no|vol|pp|ref|refs|viz|ca)\.)"
    r"[a-z]{3,}\.\s+[a-z]{3,}\b"
)
# an algorithm's listing read as one line: numbered steps ("2: Initialize n ← nmax 3: …")
_PSEUDOCODE = re.compile(r"←|(?:(?:^|\s)\d{1,2}:\s+\S+.*){3}|\bend (?:for|while|if|procedure)\b")
_POINTER = re.compile(
    r"^(?:Figure|Fig\.|Table|Tab\.|Section|§)\s*\d+(?:\.\d+)*\s+(?:depicts|shows|illustrates"
    r"|presents|summari[sz]es|describes|compares|lists|gives|plots|details|reports)\b"
    r"|\b(?:as|which) (?:we|is|are) (?:show|shown|describe|described|detail|detailed|discuss"
    r"|discussed|explain|explained) (?:in|below)\b|\bin the (?:subsequent|following|next)"
    r" (?:sub)?sections?\b|\bwe(?:'ll| will) (?:briefly )?(?:examine|describe|discuss|present)\b"
    r"|\bwe (?:first |then |next |now |further )?(?:introduce|describe|present|discuss|detail"
    r"|explain|elaborate on|evaluate)\b[^.]*\b(?:in|at) (?:§|Sections?\s|Sec\.\s?)\d"
    # "… hinged on two key insights.": a sentence announcing the ones after it holds none of them
    r"|\b(?:two|three|four|five|several|a few|the following)\s+(?:\w+\s+)?(?:insights?"
    r"|observations?|reasons?|contributions?|challenges?|steps?|ideas?|principles?|questions?"
    r"|techniques?|components?)\W*$",
    re.IGNORECASE,
)
# an artifact appendix describes the package that reproduces the paper, not what the paper found
_ARTIFACT = re.compile(
    r"\b(?:this|the|our) artifacts?\b|\bartifact (?:appendix|evaluation|description|check-list)\b",
    re.IGNORECASE,
)
_AFFILIATION = re.compile(
    r"@|\bUniversity\b|\bInstitute\b|\bLaborator|\bInc\.|\bCorporation\b|\bDepartment\b",
)
_ACCELERATOR = re.compile(
    r"\b(?:A100|A800|A10G?|A30|A40|A6000|A5000|H100|H200|H800|H20|L4|L40S?|T4|V100|P100|K80|GH200"
    r"|B200|MI\d{3}X?|TPU(?:s|v\d+|\s?v\d+)?|RTX\s?\d{4}|Gaudi\d?|NVLink|NVLINK|InfiniBand"
    r"|PCIe|Xeon|EPYC|M[123] (?:Max|Pro|Ultra))(?![a-z])"
)
_GENERIC_HARDWARE = re.compile(r"\b(?:GPUs?|CPU cores?|nodes?|cluster|servers?|machines?)\b")
# a cluster told by its size ("4 nodes and 32 GPUs", "two 8-GPU servers"): which hardware, counted
_COUNTED_HARDWARE = re.compile(
    r"\b(?:\d+|two|four|eight|sixteen)\s?(?:[x×]\s?)?(?:\d+-GPU\s)?(?:GPUs|nodes|servers|machines)\b",
    re.IGNORECASE,
)
_QUANTITY = re.compile(
    r"\d[\d,.]*\s?(?:%|×|x\b|[KMGT]i?B\b|GB/s|Gbps|bytes?\b|tokens?\b|ms\b|s\b|seconds?\b|"
    r"minutes?\b|hours?\b|GPUs?\b|times\b|bits?\b|B\b|FLOPs?\b|requests?\b|steps?\b|epochs?\b|"
    r"layers?\b|heads?\b|threads?\b|experts?\b|points?\b|samples?\b|questions?\b|"
    r"instances?\b|nodes?\b|chips?\b)|\b\d[\d,.]*\b"
)
_MODEL = re.compile(
    r"\b(?:OPT|LLaMA|Llama|GPT|Mistral|Mixtral|Falcon|BLOOM|Vicuna|Qwen|Gemma|PaLM|Phi|Alpaca"
    r"|Pythia|MPT|T5|mT5|Chinchilla|DeepSeek|Yi|LWM|StableLM|BERT|CodeLlama)\b"
    r"|\b\d+(?:\.\d+)?[BM]\b"
)
_TIME = re.compile(
    r"\d[\d,.]*(?:\s?[-–]\s?\d[\d,.]*)?\s?(?:ms|µs|us|s|sec|seconds?|minutes?|mins?|hours?|"
    r"hrs?|days?|GPU[- ]hours?)\b"
)


def _number_in(units: str) -> re.Pattern[str]:
    """A number as printed ("1,024", "2.5") with one of the `|`-separated units after it."""
    return re.compile(rf"\d[\d,.]*\s?(?:{units})")


_RATIO = _number_in(r"%|×|x\b|times\b|-fold\b")
_AMOUNT = _number_in(r"[KMGTP]i?B(?:/s)?\b|GB/s|[GMT]bps\b|bytes?\b|bits?\b")
# a numeric format as a setting: "16-bit", "INT8", "FP16", "bfloat16"
_PRECISION = re.compile(r"\b\d+-bits?\b|\b(?:INT|FP|fp|int|E\dM)\d+\b|\bb(?:f|float)16\b")
_UNITS_ASKED: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (
        re.compile(
            r"\bhow long\b|\bhow much time\b|\btakes? to\b|\bpaused\b|\bdowntime\b|\bhow quickly\b",
            re.IGNORECASE,
        ),
        _TIME,
    ),
    (
        re.compile(
            r"\bhow much (?:\w+ )?(?:slower|faster|higher|lower|better|worse|more|less|smaller|"
            r"larger|cheaper|fewer)\b|\bby how much\b|\bhow many times\b|\bspeed-?ups?\b"
            r"|\bwhat (?:[\w-]+ ){0,3}(?:improvement|gain|reduction|slowdown)s?\b"
            r"|\bwhat (?:fraction|share|percentage|ratio)\b|\bhow expensive\b|\bcheaper\b"
            r"|\bhow much of\b",
            re.IGNORECASE,
        ),
        _RATIO,
    ),
    (
        re.compile(
            r"\bhow much (?:\w+[- ]){0,2}(?:memory|space|storage|bandwidth)\b|\bbandwidth\b"
            r"|(?<!\d-)(?<!\d )\b(?:bits?|bytes?)\b",
            re.IGNORECASE,
        ),
        _AMOUNT,
    ),
    (re.compile(r"\bhow expensive\b|\bcost\b", re.IGNORECASE), _TIME),
    (
        re.compile(r"\b(?:what|which) (?:[\w-]+ )?(?:precision|bit-?width|format)\b", re.I),
        _PRECISION,
    ),
]
_CAUSE = any_word(
    r"because|since|due to|so that|in order to|to avoid|to reduce|to keep|as a result|"
    r"trade-?off|at the cost of|leads? to|results? in|caused? by|the reason|this is why|"
    r"therefore|thus|hence|which (?:allows|enables|makes|means)|otherwise|sensitive|unsafe|"
    r"inefficient|insufficient|bottleneck"
)
_SETTING = re.compile(
    r"\b(?:set|sets|setting|we use|we used|we employ|we choose|chosen|default|configured|"
    r"configuration|fixed|threshold|size of|rank)\b|=",
    re.IGNORECASE,
)
_LIMIT = any_word(
    r"limitation|limited|cannot|can not|does not|do not|not|fail|fails|only|however|"
    r"challenge|difficult|hard|drawback|overhead|requires?|unsafe|never"
)
_SETUP = re.compile(
    r"\bwe (?:use|used|set|choose|chose|employ|adopt|deploy|run|ran|evaluate|evaluated|find|"
    r"found|observe|implement|conduct|conducted|fine-tune|train|trained|adjust|configure|follow)\b"
    r"|\bare conducted\b",
    re.IGNORECASE,
)
# a symbol given a value: "α = 6.0", "k=4", "n_max = 16", "a minimum required B of 6 GB/s"
_ASSIGNED = re.compile(
    r"(?<![\w.])(?P<symbol>[A-Za-zα-ωΑ-Ω](?:_\{?\w{1,4}\}?)?)(?:\s*=\s*|\s+of\s+)[-+]?\d"
)
_FOCUS = re.compile(r"\b(?:what|which|how many|how much)\s+((?:\w+\s+){0,3}?\w+)\b", re.IGNORECASE)
_DIGIT_TOKEN = re.compile(r"\d")
_SUPERLATIVE = any_word(
    r"largest|highest|best|most|fastest|lowest|smallest|least|biggest|greatest|optimal|"
    r"maximum|minimum|longest|shortest|worst|slowest|peak"
)
_MECHANISM = any_word(
    r"by|we|uses?|using|applies|apply|instead|policy|predict|decides?|reserv|select|"
    r"through|via|when|each|then"
)
# up to three words after "which" / "what" that do not cross the question's verb
_NOT_A_VERB = r"(?:(?!(?:does|do|did|is|are|was|were|can|could|should|would|will)\b)\w+\W+){0,3}?"
# what a question asks for, and what a sentence answering it holds
_ASKED: list[tuple[str, re.Pattern[str], re.Pattern[str]]] = [
    (
        "hardware",
        re.compile(
            rf"\b(?:which|what)\W+{_NOT_A_VERB}(?:gpus?|hardware|accelerators?|devices?|tpus?"
            r"|clusters?|machines?|nodes?|testbed|platform|cpus?)\b|\bhardware\b"
            r"|\b(?:evaluated|run|ran|deployed|tested|measured|conducted) on\b|\bon what\b",
            re.IGNORECASE,
        ),
        _ACCELERATOR,
    ),
    (
        "quantity",
        re.compile(
            r"\bhow (?:much|many|large|big|long|fast|small|far|often|expensive|fine|closely)\b"
            r"|\bwhat (?:[\w-]+ ){0,3}(?:size|fraction|share|percentage|ratio|speed-?up|bandwidth|"
            r"precision|length|rank|threshold|latency|cost|number|improvement|gain|reduction"
            r"|slowdown|overhead|savings?)s?\b|\bby how\b|\bat what\b"
            # a metric right after "what" ("what accuracy does it lose"), not "what bounds the
            # throughput", which asks for a cause
            r"|\bwhat (?:(?:is|are|was|were) (?:the |its |their )?)?(?:[\w]+-[\w-]+ )?"
            # one plain word before the metric ("what acceptance rate"), not a verb ("what
            # limits throughput", which asks for a cause)
            r"(?:(?![a-z]+s\b)[a-z]+ )?"
            r"(?:accuracy|perplexity|throughput|goodput|speed|score|error|rate|footprint"
            r"|utili[sz]ation|capacity)s?\b"
            r"|\bbeyond which\b"
            r"|\bwhat (?:is|are|was|were) the (?:longest|shortest|largest|smallest|maximum|minimum"
            r"|max|min)\b",
            re.IGNORECASE,
        ),
        _QUANTITY,
    ),
    (
        "model",
        re.compile(
            rf"\b(?:which|what)\W+(?:{_NOT_A_VERB}(?:llms?|models?|backbones?)|sizes?)\b",
            re.IGNORECASE,
        ),
        _MODEL,
    ),
    (
        "cause",
        re.compile(r"\bwhy\b|\bmotivat|\breason\b|\btrade-?off\b|\bwhat makes\b", re.IGNORECASE),
        _CAUSE,
    ),
    (
        "setting",
        re.compile(
            r"\bdefault\b|\bconfigur|\bset\b|\bsetting|\bthreshold\b|\bhyperparameter|"
            r"\bwhat (?:[\w-]+ ){0,3}(?:size|value|rank|length|data|dataset)\b",
            re.IGNORECASE,
        ),
        _SETTING,
    ),
    (
        "limitation",
        re.compile(
            r"\blimitation|\bdrawback|\bfail|\bhard to\b|\bwhen does\b|\bever\b",
            re.IGNORECASE,
        ),
        _LIMIT,
    ),
    (
        "mechanism",
        re.compile(
            r"(?:^|[;:]\s*|,\s*(?:and|but|so)?\s*)how (?:does|do|did|is|are|was|were)\b"
            r"|\bwhat (?:does|do|did) (?:[\w'’-]+ ){1,5}do\b",
            re.IGNORECASE,
        ),
        _MECHANISM,
    ),
]


@dataclass(frozen=True)
class Candidate:
    """One sentence (or table row) of a page, with the sentences beside it."""

    number: int  # the bundle source whose page it is on
    paper_id: str
    page: int | None
    text: str
    context: str  # the sentences beside it and the paper's title: where a subject may be named
    title: str = ""


@dataclass(frozen=True)
class Answering:
    number: int
    paper_id: str
    page: int | None
    text: str
    score: float


def asked_kinds(question: str) -> list[str]:
    """The kinds of answer the question asks for, in order of how specific they are."""
    return [kind for kind, asked, _ in _ASKED if asked.search(question)]


# "Which model and which GPUs …", "What library does X use, and why not NCCL?": a question
# asking a second thing after "and"
_SECOND_ASK = re.compile(
    r",?\s+and\s+(?=(?:which|what|why|how|where|when|who|whose|whether)\b)", re.IGNORECASE
)


def question_parts(question: str) -> list[str]:
    """The things a question asks, one clause each ("Which long-context model", "which GPUs
    did the evaluation use?"); the whole question when it asks one."""
    parts = [p.strip(" ,?") for p in _SECOND_ASK.split(question)]
    if len(parts) < 2 or any(len(p.split()) < 2 for p in parts):
        return [question]
    return parts


def answers_part(part: str, others: list[str], sentence: str) -> bool:
    """The sentence answers this part of a question: it holds the words only this part has
    ("why not NCCL": NCCL), or, for a part asking for an accelerator, a number or a model, one
    of them and that kind ("what did it cost": a number and "cost")."""
    own = content_stems(part) - {w for other in others for w in content_stems(other)}
    stems = content_stems(sentence)
    kinds = asked_kinds(part)
    if kinds and set(kinds) <= SPECIFIC_KINDS:
        return not lacks_asked_kind(part, sentence) and (not own or bool(own & stems))
    return own <= stems


def holds_kind(kind: str, sentence: str, given: frozenset[str] = frozenset()) -> bool:
    """The sentence holds an answer of this kind; a quantity only counts when it is not one of
    the numbers the question itself gives (`given`) nor a model's size ("65B")."""
    pattern = next(answer for name, _, answer in _ASKED if name == kind)
    if kind != "quantity":
        return bool(pattern.search(sentence))
    counted = _POINTER_NUMBER.sub("", sentence)
    return any(_new_quantity(match.group(), given) for match in pattern.finditer(counted))


# a number that points at a part of the paper ("Figure 8", "Question 2", "Section 4.1") counts
# nothing
_POINTER_NUMBER = re.compile(
    r"\b(?:Figures?|Fig\.|Tables?|Tab\.|Sections?|Sec\.|§|Questions?|Equations?|Eqs?\.|Appendix"
    r"|Algorithm|Line|Step|Theorem|Lemma)\s*\(?\d+(?:\.\d+)*[a-z]?\)?"
    # a citation's year: "(Chelba et al., 2013)", "Leviathan et al. (2023)"
    r"|\bet al\.?,?\s*\(?(?:19|20)\d\d[a-z]?\)?|\b[A-Z][a-z]+,?\s+\(?(?:19|20)\d\d[a-z]?\)"
    # an item's number in a list run into the sentence: "1) GPT-like models …; and 2) …"
    r"|(?:^|(?<=[\s:;]))\(?\d{1,2}\)(?=\s)",
)
# nor does a model's size ("65B", "6.7 B")
_MODEL_SIZE = re.compile(r"\d+(?:\.\d+)?\s?[BM]")


def _new_quantity(found: str, given: frozenset[str]) -> bool:
    return (
        not _MODEL_SIZE.fullmatch(found.strip())
        and not set(find_numbers(found, NumberShape.DECIMAL)) <= given
    )


# a number written out: the words meaning reads as numbers, and the scales and shares beside them
_SPELLED_QUANTITY = re.compile(
    r"\b(?:" + "|".join(NUMBER_WORDS) + r"|twenty|thirty|fifty|hundreds?|thousands?|millions?"
    r"|billions?|triple|percent)\b|\bone (?:percent|tenth|third|quarter|half)\b",
    re.IGNORECASE,
)
_KIND_WORDS = {"hardware": "an accelerator", "quantity": "a number", "model": "a model"}


def lacks_asked_kind(question: str, sentence: str) -> str:
    """What a question asking only for specific kinds (an accelerator, a number, a model) asks
    for, when the sentence holds none of them (naming GPUs or a cluster counts); else "". A
    sentence that holds nothing asked for says something, but not the answer."""
    kinds = asked_kinds(question)
    if not kinds or not set(kinds) <= SPECIFIC_KINDS:
        return ""
    given = frozenset(find_numbers(question, NumberShape.DECIMAL))
    units = asked_units(question)
    if _kind_score(kinds, sentence, given, units) > 0 and not (
        kinds == ["quantity"] and _only_a_size(question, sentence, given, units)
    ):
        return ""
    if "quantity" in kinds and _SPELLED_QUANTITY.search(sentence):
        return ""  # "one percent of the mean", "two experts when ..."
    return " or ".join(_KIND_WORDS[kind] for kind in kinds)


# "How much memory does S-LoRA save …", "How much does it cut latency": the number asked for is
# a change, not a size the system has
_CHANGE_ASKED = re.compile(
    r"\bhow much\b.*\b(?:sav(?:e|es|ed|ing)|reduc\w*|cut|cuts|shrinks?|lowers?|frees?|improv\w*"
    r"|increas\w*|gains?|boosts?|speeds? up|compress\w*)\b",
    re.IGNORECASE,
)
_CHANGE_WORD = (
    r"\b(?:sav(?:e|es|ed|ing|ings)|reduc\w*|decreas\w*|cut\w*|shrink\w*|fre(?:e|es|ed|eing)"
    r"|lower\w*|improv\w*|increas\w*|gains?|boost\w*|speed\w*|compress\w*|by)\b"
)


def _as_change(unit: re.Pattern[str]) -> re.Pattern[str]:
    """A number in this unit told as a change: a ratio, after a word of change within a few
    words ("save us 9-20 ms", "reduces the latency from 180 seconds"), or before "less"."""
    return re.compile(
        rf"{_RATIO.pattern}|{_CHANGE_WORD}\W+(?:[\w-]+\W+){{0,5}}?(?:{unit.pattern})"
        rf"|(?:{unit.pattern})\W+(?:less|fewer|lower|smaller)\b",
        re.IGNORECASE,
    )


def _only_a_size(
    question: str, sentence: str, given: frozenset[str], units: list[re.Pattern[str]]
) -> bool:
    """The question asks what something saves or cuts, and the sentence's numbers are sizes
    ("ranges from 64 GB to 670 GB"), none a change."""
    return bool(_CHANGE_ASKED.search(question)) and not holds_unit(units, sentence, given)


def asked_units(question: str) -> list[re.Pattern[str]]:
    """The units a how-much / how-long question asks its number in (a time, a ratio, an amount of
    memory or bandwidth, a cost), told as a change when the question asks what something saves
    or cuts; none when any number may answer it."""
    units = [unit for asked, unit in _UNITS_ASKED if asked.search(question)]
    if not _CHANGE_ASKED.search(question):
        return units
    return [_as_change(unit) for unit in units or [_QUANTITY]]


def holds_unit(units: list[re.Pattern[str]], sentence: str, given: frozenset[str]) -> bool:
    counted = _POINTER_NUMBER.sub("", sentence)
    return any(
        _new_quantity(match.group(), given) for unit in units for match in unit.finditer(counted)
    )


def _holds_asked(
    kind: str, sentence: str, given: frozenset[str], units: list[re.Pattern[str]]
) -> bool:
    """The sentence holds the kind asked for: a quantity in the unit asked when one is, an
    accelerator by its name or a cluster by its size."""
    return _held_as(kind, sentence, given, units) > 0


def _held_as(
    kind: str, sentence: str, given: frozenset[str], units: list[re.Pattern[str]]
) -> float:
    """How well the sentence holds the kind asked for: 1, or COUNTED_KIND for a cluster told by
    its size and not by its accelerator's name, or 0."""
    if kind == "quantity" and units:
        return float(holds_unit(units, sentence, given))
    if holds_kind(kind, sentence, given):
        return 1.0
    return COUNTED_KIND if kind == "hardware" and _COUNTED_HARDWARE.search(sentence) else 0.0


def candidates(bundle: Bundle, pages: dict[tuple[str, int], str]) -> list[Candidate]:
    """The sentences and table rows of each source's page (its text when the page is not
    stored), each once, in source order."""
    seen: set[str] = set()
    found = []
    for source in bundle.sources:
        page = source.pages[0] if source.pages else None
        text = pages.get((source.paper_id, page), "") if page is not None else ""
        units = page_units(text or strip_citations(source.text))
        for index, unit in enumerate(units):
            key = " ".join(unit.lower().split())
            if key in seen or not is_answer_like(unit):
                continue
            seen.add(key)
            beside = units[max(0, index - NEIGHBOURS) : index + NEIGHBOURS + 1]
            found.append(
                Candidate(
                    source.number,
                    source.paper_id,
                    page,
                    unit,
                    f"{source.title} {' '.join(beside)}",
                    source.title,
                )
            )
    return found


def page_units(text: str) -> list[str]:
    """A page as its prose sentences and its tables' rows, in page order; a sentence a table
    cut in two is read whole, and a table's caption as a sentence of its own."""
    lines = [" ".join(line.split()) for line in text.replace("\ufffe", "").splitlines()]
    units: list[str] = []
    prose: list[str] = []
    table: list[str] = []
    caption = ""  # the last caption read: a table's caption stands above it or below it
    plot = False  # inside a plot: its axis ticks were read, its labels and caption follow
    skip = -1  # lines up to this index were read as a plot's caption
    for index, line in enumerate(lines):
        if index <= skip:
            continue
        if _is_row(line):
            if prose and not table:
                done, unfinished = _unfinished_tail(prose_sentences(" ".join(prose)))
                units.extend(done)
                prose = [unfinished] if unfinished else []
            table.append(line)
            continue
        if table:
            plot = all(_is_axis(row) for row in table)
            below = line if _CAPTION.match(line) else ""
            units.extend(_rows(table, below or caption) if not plot else [])
            table, caption = [], ""
            if below:
                units.append(below)
                plot = False
                continue
        if plot and _is_plot_label(line):
            continue  # a legend's or an axis's words, not the sentence the plot cut in two
        if plot and _CAPTION.match(line):
            # the plot's caption, apart from the sentence it interrupted
            skip = _caption_end(lines, index) if _unfinished_tail(prose)[1] else index
            units.append(" ".join(lines[index : skip + 1]))
            plot = False
            continue
        plot = False
        if is_heading_line(line, lines[index + 1] if index + 1 < len(lines) else ""):
            units.extend(prose_sentences(" ".join(prose)))  # a heading ends what stood before it
            prose = []
            continue
        if _CAPTION.match(line):
            caption = line
        prose.append(line)
    units.extend(_rows(table, caption))
    units.extend(prose_sentences(" ".join(prose)))
    units = [item for unit in units for item in bullet_items(unit)]
    units = [re.sub(r"(?<=\w)- (?=\d)", "-", unit) for unit in map(without_heading, units) if unit]
    return joined_enumerations(units)


def bullet_items(unit: str) -> list[str]:
    """A bulleted list flattened into one line, as its items: each ends where the next bullet
    begins, so an item without a full stop of its own is given one."""
    items = [item.strip() for item in _BULLET.split(unit) if item.strip()]
    return [
        item if index == len(items) - 1 or item.endswith((".", "!", "?", ";", ":")) else f"{item}."
        for index, item in enumerate(items)
    ]


def joined_enumerations(units: list[str]) -> list[str]:
    """A list the sentence ends cut ("... two aspects: (1) ... accuracy." "Thus, ...; (2) ...")
    read as one unit: the sentence opening it with its "(1)" and the next one holding its "(2)"."""
    out: list[str] = []
    for unit in units:
        if (
            out
            and _ITEM_TWO.search(unit)
            and _ITEM_ONE.search(out[-1])
            and not _ITEM_TWO.search(out[-1])
            and len(out[-1]) + len(unit) < MAX_CHARS
        ):
            out[-1] = f"{out[-1]} {unit}"
        else:
            out.append(unit)
    return out


def _unfinished_tail(sentences: list[str]) -> tuple[list[str], str]:
    """The sentences, and the last one apart when it does not end (a table cut it off)."""
    if sentences and not sentences[-1].rstrip().endswith((".", "!", "?", ":", ")")):
        return sentences[:-1], sentences[-1]
    return sentences, ""


def without_heading(sentence: str) -> str:
    """A sentence without the numbered section heading a page's flattened lines ran into it
    ("4.3 Parallel attention layers We consider ..." → "We consider ..."), or a paragraph's
    run-in title ("Models and hardware: We evaluate ...")."""
    sentence = _TRAILING_HEADING.sub("", sentence, count=1)
    sentence = _STRAY_NUMBER.sub("", without_heading_chain(sentence), count=1)
    sentence = _RUN_IN_HEADING.sub("", _LEADING_HEADING.sub("", sentence, count=1), count=1)
    return _UNNUMBERED_HEADING.sub("", sentence, count=1)


def without_heading_chain(sentence: str) -> str:
    """A sentence without a section's and its subsection's headings run in before it ("4.4
    Dynamic Scheduling Policy 4.4.1 Goals and Definitions Llumnix's policy is ..." → "Llumnix's
    policy is ..."): after the last section number, heading words are capitalised (or small
    joining words), and the sentence opens with the last capitalised word before a lowercase one."""
    words = sentence.split()
    if not words or not _SECTION_NUMBER.fullmatch(words[0]):
        return sentence
    numbers = [i for i, w in enumerate(words[1:CHAIN_WORDS], 1) if _SECTION_NUMBER.fullmatch(w)]
    if not numbers:
        return sentence
    start = numbers[-1] + 1
    end = start
    while end < len(words) and (words[end][:1].isupper() or words[end] in _HEADING_JOINERS):
        end += 1
    if end >= len(words) or end - start < 2 or not words[end][:1].islower():
        return sentence  # no heading words, or no sentence after them
    return " ".join(words[end - 1 :])


def _caption_end(lines: list[str], start: int) -> int:
    """The last line of a caption that interrupts a sentence: the first line ending a sentence
    after which the text does not open a new one (it goes on with the interrupted sentence)."""
    for index in range(start, len(lines) - 1):
        following = lines[index + 1].lstrip()
        if lines[index].rstrip().endswith(".") and not following[:1].isupper():
            return index
    return start


def _is_axis(line: str) -> bool:
    """A plot's axis ticks: numbers and nothing else ("1 1.2 1.4 1.6")."""
    return all(_is_number_cell(cell) for cell in _cells(line))


PLOT_LABEL_WORDS = 3


def _is_plot_label(line: str) -> bool:
    """A plot's label or legend entry: a few words, no sentence's end."""
    return len(line.split()) <= PLOT_LABEL_WORDS and not line.rstrip().endswith((".", ":"))


def _is_row(line: str) -> bool:
    """A table's row: a label and at least three cells, most of them numbers."""
    cells = _cells(line)
    numbers = sum(map(_is_number_cell, cells))
    return numbers >= 3 and numbers >= 0.4 * len(cells) and not line.rstrip().endswith(".")


def _cells(line: str) -> list[str]:
    """A row's cells: a unit word stays with the number before it ("9.5 days"); citation marks
    ("[12]", "[69, 39, 15]") and lone dashes are no cells."""
    cells: list[str] = []
    for token in strip_citations(line).split():
        if token in {"-", "–", "—"}:
            continue
        if cells and _UNIT_CELL.match(token) and _is_number_cell(cells[-1]):
            cells[-1] = f"{cells[-1]} {token}"
            continue
        cells.append(token)
    return cells


def _is_number_cell(cell: str) -> bool:
    return bool(_CELL_NUMBER.match(cell.split()[0]))


def _is_column_head(row: list[str]) -> bool:
    """A first row naming its columns by numbers (a sweep: "Batch size 1 2 4 8"): plain
    integers rising, not a row of measured values."""
    numbers = [c for c in row if _is_number_cell(c)]
    if not numbers or not all(c.isdigit() for c in numbers):
        return False
    values = [int(c) for c in numbers]
    return all(a < b for a, b in itertools.pairwise(values))


def _rows(table: list[str], caption: str) -> list[str]:
    """Each row of a table as one line: the caption, its label and its cells under the column
    heads when the first row names them."""
    if not table:
        return []
    first = _cells(table[0])
    head = first if len(table) > 1 and _is_column_head(first) else []
    numbered = _CAPTION.match(caption)
    named = numbered.group().rstrip(".:").strip() if numbered else "Table"
    head_label = " ".join(c for c in head if not _is_number_cell(c))
    out = []
    for row in table[1:] if head else table:
        cells = _cells(row)
        label = " ".join(c for c in cells if not _is_number_cell(c))
        values = [c for c in cells if _is_number_cell(c)]
        heads = [f"{head_label} {h}".strip() for h in head if _is_number_cell(h)]
        if len(heads) == len(values) and heads:
            joined = ", ".join(f"{h}: {v}" for h, v in zip(heads, values, strict=True))
        else:
            joined = ", ".join(values)
        out.append(f"{named} row, {label}: {joined}" if label else f"{named} row: {joined}")
    return out


def is_read_row(text: str) -> bool:
    """A table's row as `page_units` reads it ("Table 2 row, <label>: <head>: <cell>, ..."),
    not a sentence of the paper: shown without quotation marks."""
    return bool(_READ_ROW.match(text))


def is_heading_run(sentence: str) -> bool:
    """A section number and heading words, with nothing of a sentence after them."""
    if not _NUMBERED_START.match(sentence):
        return False
    words = len(sentence.split())
    if words <= SHORT_HEADING_WORDS:
        return not _FINITE_VERB.search(sentence)
    return words <= HEADING_WORDS and not _VERB_LIKE.search(sentence)


_SECTION_LINE = re.compile(
    r"^(?:\d+\.\d+(?:\.\d+)*\.?|\d+\.?(?=(?:\s+(?:[A-Z][\w-]*|[a-z]{1,4}))+$))\s"
)


def is_heading_line(line: str, following: str = "") -> bool:
    """A page's line that is a section's number and heading ("5.3 Latency Reduction of BERT
    Models", "7 Related Work"): a sub-section's number, or a number before capitalised words,
    with the next line opening a sentence (a prose line may begin "8 NVIDIA A100 GPUs")."""
    return (
        bool(_SECTION_LINE.match(line))
        and not line.endswith((".", ",", ";", ":"))
        and is_heading_run(line)
        and not following[:1].islower()
    )


def is_answer_like(sentence: str) -> bool:
    """A sentence a reader can take as an answer: not a heading, an author or affiliation line,
    a reference entry, a caption's bare label or a fragment."""
    body = sentence.strip()
    if not MIN_CHARS <= len(body) <= MAX_CHARS:
        return False
    if _HEADING.match(body) or _REFERENCE.search(body) or _AFFILIATION.search(body):
        return False
    words = split_words(body)
    if len(words) < 5:
        return False
    if body.endswith("?") or _TITLE_BLOCK.search(body) or len(_TABLE_HEAD.findall(body)) >= 2:
        return False  # a question asks, a title block names, a table's head labels: none answers
    if is_heading_run(body) or _PSEUDOCODE.search(body) or _GLUED.search(body):
        return False
    if len(words) <= RUN_IN_WORDS and not _VERB_LIKE.search(body):
        return False  # a run-in heading ("Better data-efficiency for the calibration set.")
    if is_read_row(body):
        return True
    if not body.rstrip('"”’)]').endswith((".", "!", "?", ";", ":")):
        return False  # the page ends inside it ("... because we find the de-11")
    opens = body[0].isupper() or body[0].isdigit() or body[0] in "(\"'“"
    return opens and reads_as_prose(body) and not says_nothing(body)


def rank(
    question: str,
    found: Sequence[Candidate],
    similarity: Callable[[str, list[str]], Sequence[float]] | None = None,
) -> list[Answering]:
    """The candidates best first, each scored by how it answers the question."""
    if not found:
        return []
    features = _Features(question, found, similarity)
    scored = [
        Answering(c.number, c.paper_id, c.page, c.text, features.score(i, c))
        for i, c in enumerate(found)
    ]
    return sorted(scored, key=lambda a: (-a.score, a.number))


class _Features:
    """What is known of the question once, and each candidate's score from it."""

    def __init__(
        self,
        question: str,
        found: Sequence[Candidate],
        similarity: Callable[[str, list[str]], Sequence[float]] | None,
    ) -> None:
        self.found = found
        wanted = {word[:5] for word in content_words(question)}
        premise = premise_words(question)
        self.asked = asked_kinds(question)
        self.subjects = {_subject(name) for name in question_names(question) if len(name) > 2}
        self.question_stems = content_stems(question)
        self.question_numbers = frozenset(find_numbers(question, NumberShape.DECIMAL))
        self.units = asked_units(question)
        self.superlative = bool(_SUPERLATIVE.search(question))
        # how, why and when-not are answered in words; a number alone answers none of them
        self.in_words = bool(self.asked) and self.asked[0] in PROSE_KINDS
        focus = _FOCUS.search(question)
        self.focus = content_stems(focus.group(1)) if focus else set()
        self.words = [{w[:5] for w in split_words(c.text.lower())} & wanted for c in found]
        counts = Counter(word for words in self.words for word in words)
        self.weight = {
            w: math.log(1 + len(found) / (1 + counts[w])) * _question_weight(w, premise)
            for w in wanted
        }
        self.total = sum(self.weight.values()) or 1.0
        titles = {w[:5] for c in found for w in split_words(c.title.lower())}
        subject = {s[:5] for s in self.subjects} | titles
        self.topical = {w: v for w, v in self.weight.items() if w not in subject}
        self.topical_total = sum(self.topical.values()) or 1.0
        self.meaning = (
            [float(x) for x in similarity(question, [c.text for c in found])]
            if similarity is not None
            else [0.0] * len(found)
        )

    def score(self, index: int, candidate: Candidate) -> float:
        text = candidate.text
        tokens = text.split()
        stems = content_stems(text)
        score = (
            W_WORDS * sum(self.weight[w] for w in self.words[index]) / self.total
            + W_FOCUS
            * sum(self.topical.get(w, 0.0) for w in self.words[index])
            / self.topical_total
            + W_NEAR * self._nearest(text)
            + W_MEANING * self.meaning[index]
            + W_BESIDE * self._beside(index)
            + W_KIND * _kind_score(self.asked, text, self.question_numbers, self.units)
            + W_LACKS_KIND * self._lacks_kind(text)
            + W_LACKS_CAUSE * (self.asked[:1] == ["cause"] and not _CAUSE.search(text))
            + W_NAMED_KIND * self._names_kind(text)
            + W_ASKED * (len(self.focus & stems) / len(self.focus) if self.focus else 0.0)
            + W_SYMBOL * (not self.in_words and self._value_by_symbol(text, candidate.context))
            + W_SUBJECT * (_subject_share(self.subjects, candidate) if self.subjects else 1.0)
            + W_NEW_NUMBER * (not self.in_words and self._new_number(text))
            + W_SETUP * (not self.superlative and bool(_SETUP.search(text)))
            + W_SUPERLATIVE * (self.superlative and bool(_SUPERLATIVE.search(text)))
            + W_CAPTION * bool(_CAPTION.match(text))
            + W_POINTER * bool(_POINTER.search(text) or _ARTIFACT.search(text))
            + W_DIGITS * sum(bool(_DIGIT_TOKEN.search(t)) for t in tokens) / max(1, len(tokens))
            + W_LENGTH * len(text) / 200
            + W_FORMULA * (len(_FORMULA.findall(text)) >= FORMULA_SYMBOLS)
            - RANK_PENALTY * (candidate.number - 1)
        )
        if not content_stems(_POINTER.sub("", text)) - self.question_stems:
            score -= W_MEANING  # the question's own words again (maybe behind "Figure 4 shows")
        return score

    def _value_by_symbol(self, text: str, context: str) -> bool:
        """The sentence gives a symbol's value ("α = 6.0") and a sentence beside it names
        that symbol by a word of the question ("the threshold α"): the value asked for,
        written in the paper's notation."""
        for match in _ASSIGNED.finditer(text):
            symbol = re.escape(match["symbol"])
            for named in re.finditer(rf"([A-Za-z][\w-]+)\s+{symbol}(?![\w])", context):
                if content_stems(named.group(1)) & self.question_stems:
                    return True
        return False

    def _new_number(self, text: str) -> bool:
        return bool(set(find_numbers(text, NumberShape.DECIMAL)) - self.question_numbers)

    def _names_kind(self, text: str) -> bool:
        """The question asks which accelerator or model, and the sentence names one."""
        first = self.asked[0] if self.asked else ""
        return first in NAMED_KINDS and holds_kind(first, text)

    def _lacks_kind(self, text: str) -> bool:
        """The question asks for a hardware, a quantity or a model and the sentence holds none."""
        first = self.asked[0] if self.asked else ""
        return first in SPECIFIC_KINDS and not _holds_asked(
            first, text, self.question_numbers, self.units
        )

    def _nearest(self, text: str) -> float:
        """The most weight of the question's topical words within one short run of words."""
        words = [w[:5] for w in split_words(text.lower())]
        best = 0.0
        for start in range(max(1, len(words) - PROXIMITY_WORDS + 1)):
            run = set(words[start : start + PROXIMITY_WORDS])
            best = max(best, sum(v for w, v in self.topical.items() if w in run))
        return best / self.topical_total

    def _beside(self, index: int) -> float:
        number = self.found[index].number
        around = [
            self.meaning[i]
            for i in (index - 1, index + 1)
            if 0 <= i < len(self.found) and self.found[i].number == number
        ]
        return max(around, default=0.0)


def question_names(question: str) -> set[str]:
    """The names a question gives, as written, without a possessive ("Mooncake's")."""
    return {re.sub(r"['’]s$", "", name) for name in names_in(question)}


def _subject(name: str) -> str:
    """A name as a page would write the question's subject: in lower case, without a count
    before an accelerator ("8xA800", whose pages write "8×A800" or "8 A800 GPUs")."""
    return re.sub(r"^\d*[x×](?=[a-z]+\d)", "", name.lower())


def premise_words(question: str) -> set[str]:
    """The words (cut to five letters) only the question's premise holds, not what it asks."""
    found = _PREMISE.match(question.strip())
    if not found:
        return set()
    granted = {w[:5] for w in content_words(found.group(0))}
    return granted - {w[:5] for w in content_words(question[found.end() :])}


def _question_weight(word: str, premise: set[str]) -> float:
    if word in _FRAME:
        return FRAME_WEIGHT
    return PREMISE_WEIGHT if word in premise else 1.0


def _kind_score(
    asked: list[str],
    sentence: str,
    given: frozenset[str] = frozenset(),
    units: list[re.Pattern[str]] | None = None,
) -> float:
    """1 for the most specific kind asked that the sentence holds, less for a later one; a
    sentence that only names the kind ("GPUs", "a cluster") or a number in another unit than
    the one asked counts less."""
    units = units or []
    for place, kind in enumerate(asked):
        held = _held_as(kind, sentence, given, units)
        if held:
            return held / (1 + 0.5 * place)
        other_unit = kind == "quantity" and bool(units) and holds_kind(kind, sentence, given)
        if other_unit or (kind == "hardware" and _GENERIC_HARDWARE.search(sentence)):
            return GENERIC_KIND / (1 + 0.5 * place)
    return 0.0


def _subject_share(subjects: set[str], candidate: Candidate) -> float:
    where = f"{candidate.text} {candidate.context}".lower()
    return sum(subject in where for subject in subjects) / len(subjects)


def best_answering(
    ranked: list[Answering], count: int = ANSWERING_SHOWN, question: str = ""
) -> list[Answering]:
    """The best sentence and those after it close enough to it, at most `count`, no two saying
    the same; when the best holds the accelerator, number or model the `question` asks for,
    the others must too (a quote without it answers nothing beside one with it)."""
    if not ranked:
        return []
    close = [item for item in ranked if item.score >= ranked[0].score - SHOWN_MARGIN]
    if question and not lacks_asked_kind(question, close[0].text):
        close = [item for item in close if not lacks_asked_kind(question, item.text)]
    return distinct(close, count)


def distinct(ranked: list[Answering], count: int = ANSWERING_SHOWN) -> list[Answering]:
    """The first `count` sentences of the ranking, skipping one that says what a sentence
    above it says (a paper restates its contribution in abstract, introduction and end)."""
    shown: list[Answering] = []
    for item in ranked:
        if len(shown) == count:
            break
        if not any(_same(item.text, earlier.text) for earlier in shown):
            shown.append(item)
    return shown


def _same(a: str, b: str) -> bool:
    first, second = content_stems(a), content_stems(b)
    return bool(first) and len(first & second) >= 0.8 * min(len(first), len(second))
