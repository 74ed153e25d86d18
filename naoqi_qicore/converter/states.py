"""From a timeline's behavior layers to the states of its state machine.

Each keyframe of a layer is an interval ``[index, next index of the layer]``; the last
keyframe of every layer ends at ``L + 1`` where ``L`` is the largest last-keyframe index
over all layers.  A sweep over the intervals sorted by start cuts the timeline into
states: a state lists the keyframes whose diagrams are loaded during it and the labels
(keyframe names) that start there.  When the first state does not start at frame 1, an
empty state ``[1, first begin]`` comes first.  This is the 2012 converter's algorithm
(reference §2.8), worked examples included.
"""
from __future__ import annotations

from typing import List, Tuple

from naoqi_qicore.xar.model import Record, Timeline


class StateSpec(Record):
    """One state of a timeline's state machine."""

    __slots__ = ("index", "begin", "end", "labels", "keyframes")

    def __init__(self, index: int, begin: int, end: int, labels: Tuple[str, ...],
                 keyframes: Tuple[Tuple[int, int], ...]) -> None:
        self.index = index
        self.begin = begin
        self.end = end
        #: keyframe names starting at ``begin``
        self.labels = labels
        #: (layer index, keyframe index) of the keyframes whose diagrams are loaded in this
        #: state
        self.keyframes = keyframes


class _Interval(Record):
    __slots__ = ("name", "begin", "end", "keyframe")

    def __init__(self, name: str, begin: int, end: int, keyframe: Tuple[int, int]) -> None:
        self.name = name
        self.begin = begin
        self.end = end
        self.keyframe = keyframe


def _intervals(timeline: Timeline) -> List[_Interval]:
    lasts = [layer.keyframes[-1].index for layer in timeline.layers if layer.keyframes]
    if not lasts:
        return []
    final_end = max(lasts) + 1
    intervals = []
    for layer_index, layer in enumerate(timeline.layers):
        keyframes = layer.keyframes
        for position, keyframe in enumerate(keyframes):
            end = keyframes[position + 1].index if position + 1 < len(keyframes) else final_end
            intervals.append(_Interval(keyframe.name, keyframe.index, end,
                                       (layer_index, position)))
    intervals.sort(key=lambda interval: interval.begin)  # stable: layer order on ties
    return intervals


def compute_states(timeline: Timeline) -> List[StateSpec]:
    """The states of ``timeline`` in order (empty when it has no behavior keyframes)."""
    pending = _intervals(timeline)
    if not pending:
        return []
    final_end = max(interval.end for interval in pending)
    pending.reverse()  # pop() takes the next interval by start
    working = [pending.pop()]
    sweep: List[Tuple[int, int, Tuple[str, ...], Tuple[Tuple[int, int], ...]]] = []
    while working:
        begin = max(interval.begin for interval in working)
        labels = [working[-1].name]
        while pending and pending[-1].begin == begin:
            moved = pending.pop()
            working.append(moved)
            labels.append(moved.name)
        next_begin = pending[-1].begin if pending else final_end
        min_end = min(interval.end for interval in working)
        sweep.append((begin, min(min_end, next_begin), tuple(labels),
                      tuple(interval.keyframe for interval in working)))
        if pending and next_begin < min_end:
            working.append(pending.pop())
            continue
        working = [interval for interval in working if interval.end != min_end]
        if pending and (min_end == next_begin or not working):
            working.append(pending.pop())
    if sweep[0][0] > 1:
        sweep.insert(0, (1, sweep[0][0], (), ()))
    return [StateSpec(index, *state) for index, state in enumerate(sweep)]


def state_timeout_ms(state: StateSpec, fps: int) -> int:
    """The 2012 transition time-out of a state: its length in ms at ``fps`` (-1 when fps is 0)."""
    if fps == 0:
        return -1
    return int((state.end - state.begin) / (fps / 1000.0))
