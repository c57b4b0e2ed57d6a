"""The one LOO-CV objective (bench/objective.py) ranks answers in the product's order of harm."""

from dataclasses import replace

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


def test_a_second_look_pays_only_when_one_in_eleven_is_right():
    """Listing more lines below the top earns `found` for the right ones and costs for every unrelated one: a right
    fix found as one of ten second looks (nine unrelated) is a gain, one of twelve (eleven unrelated) a loss."""
    def looked(found: bool, wrong: int) -> Graded:
        return Graded(top1=False, found=found, wrong_high=False, wrong_medium=True, claimed_bad=False,
                      wrong_second_looks=wrong)
    assert objective([looked(True, 9)]) > objective([looked(False, 0)]) > objective([looked(True, 11)])
    assert objective([RIGHT_FIRST]) > objective([replace(RIGHT_FIRST, wrong_second_looks=1)])
