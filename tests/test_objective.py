"""The one LOO-CV objective (bench/objective.py) ranks answers in the product's order of harm."""

from bench.objective import Graded, objective

RIGHT_FIRST = Graded(top1=True, found=True, wrong_high=False, wrong_medium=False, claimed_bad=False)
LISTED = Graded(top1=False, found=True, wrong_high=False, wrong_medium=False, claimed_bad=False)
NOTHING = Graded(top1=False, found=False, wrong_high=False, wrong_medium=False, claimed_bad=False)
UNRELATED_MEDIUM = Graded(top1=False, found=False, wrong_high=False, wrong_medium=True, claimed_bad=False)
WRONG_TICK = Graded(top1=False, found=False, wrong_high=True, wrong_medium=False, claimed_bad=False)
BAD_CLAIM = Graded(top1=False, found=False, wrong_high=True, wrong_medium=False, claimed_bad=True)


def test_answers_rank_in_the_order_of_harm():
    ranked = [RIGHT_FIRST, LISTED, NOTHING, UNRELATED_MEDIUM, WRONG_TICK, BAD_CLAIM]
    scores = [objective([answer]) for answer in ranked]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)


def test_a_wrong_tick_costs_more_than_a_right_fix_first_earns():
    """A rule that adds one right fix first and one wrong ✓ is a net loss."""
    assert objective([WRONG_TICK, RIGHT_FIRST]) < objective([NOTHING, NOTHING])
