"""The simulated robot's own QiChat lexicon: what ``include: lexicon_enu.top`` finds when the
topic has no such file beside it.

A real Pepper or NAO ships a lexicon topic per installed language with a few hundred general
concepts (yes, no, greetings, "can you"...), which application topics include instead of
defining them again.  The simulated robot has an English one with the concepts that
applications most often take from it, written for the simulation (the robot's own word lists
are longer).  Other languages have none: including ``lexicon_<code>.top`` for them fails with
a clear error, as a missing file does.
"""
from typing import Dict, Optional

_ENGLISH = """topic: ~lexicon()
language: enu

concept:(yes) [yes yeah yep sure okay ok "of course" certainly absolutely definitely
    "why not" "all right" alright correct right "that's right" "I do" "I am" "let's go"
    "go ahead" "sounds good" fine]
concept:(no) [no nope nah "no thanks" "no thank you" "not really" "not at all" never
    "I don't" "I am not" "I'm not" "not now" negative]
concept:(confirmation) [~yes "that's it" exactly "you got it" perfect "that is correct"]
concept:(negation) [~no wrong "that's wrong" "that is not it" incorrect "not that"]
concept:(neutral) [maybe perhaps "I don't know" "I do not know" "not sure" "I'm not sure"
    "no idea" "who knows" "it depends" whatever]
concept:(hello) [hello hi hey "good morning" "good afternoon" "good evening" greetings
    "hi there" "hello there"]
concept:(goodbye) [goodbye bye "bye bye" "see you" "see you later" "see you soon"
    "good night" farewell]
concept:(thanks) [thanks "thank you" "thanks a lot" "thank you very much" "many thanks"
    cheers]
concept:(can_you) ["[can could would will] you {please}" "are you able to"
    "do you know how to" "is it possible for you to"]
concept:(i_want_to) ["I [want would like wish] to" "I'd like to" "I wanna" "let me"]
concept:(i_am) ["I am" "I'm"]
concept:(i_do_not) ["I do not" "I don't"]
concept:(what_is) ["what is" "what's" "what are" "tell me" "do you know"]
concept:(help) [help "help me" "I need help" "can you help me" assistance "I am lost"
    "I'm lost" "what can I do" "what can I say"]
concept:(repeat) [repeat "say it again" "say that again" "repeat please" "come again"
    pardon "what did you say" "I didn't hear"]
concept:(you_didnt_understand) ["you didn't understand" "you did not understand"
    "you misunderstood" "that's not what I said" "that is not what I said"
    "I didn't say that"]
concept:(stop) [stop "stop it" "stop talking" quit exit "that's enough" enough
    "be quiet" "shut up"]
concept:(joyful) [happy glad great wonderful fantastic excellent awesome delighted
    cheerful joyful "very good"]
concept:(sad) [sad unhappy "not good" "not well" bad terrible awful upset]
concept:(good) [good fine great well "very well" "pretty good" nice]
concept:(bad) [bad "not good" "not great" terrible awful horrible]
"""

_LEXICONS: Dict[str, str] = {"lexicon_enu.top": _ENGLISH}


def builtin_lexicon(file_name: str) -> Optional[str]:
    """The text of the robot's lexicon topic called ``file_name``, or None."""
    return _LEXICONS.get(file_name)
