"""What the eval's scoring and its Markdown report share: budgets, groups and notes."""

K_VALUES = (5, 10, 20)
RETRIEVAL_SYSTEMS = ("ours", "dense", "bm25", "fusion")
OVERALL = "overall_1_4"
CATEGORY_NOTE = (
    "Categories follow the data README (checked against the evidence): 1 multi-hop, "
    "2 temporal, 3 open-domain, 4 single-hop, 5 adversarial. Several published harnesses "
    "number them differently. 'Overall' is the micro-average over categories 1-4."
)
COUNTING_NOTE = (
    "How items are counted: every system returns single turns, so recall@k is evidence recall "
    "at an equal budget of k turns (recall_turns@k). Our memory ranks the turns of its pages "
    "(a page is one exchange: a turn and the other speaker's reply) and keeps the turns that "
    "matched. Evidence recall = share of a question's evidence turns present in the retrieved "
    "turns, averaged over questions that have evidence. Context tokens: the k turns rendered "
    "alike for every system ('[date] Speaker: text'), about 4 characters a token."
)
CONSTANTS_NOTE = (
    "How the constants were chosen: each system's free constants were picked on the "
    "development subset (locomo_dev.json) by the same procedure: a grid search maximising "
    "recall_turns@10 over categories 1-4. Ours: the RRF constant, the depth each list is "
    "read to (the same whatever the number of turns asked for), the list weights, the "
    "neighbour shares, the other-speaker factor, the term hop's seeds and terms and the "
    "query expansion's words per question word, cosine floor and page share "
    "(engine/retrieval.py, retrieval_lists.py and retrieval_scores.py, dev figures in their "
    "comments). Fusion: the RRF constant; BM25: k1 and b (engine/eval/baselines.py, dev "
    "figures in its comments). Dense has no constant."
)
HEADLINE_K = 10
