"""The data files NAOqi's standard boxes read from their behavior's folder.

Choregraphe adds such a file to a project with the box that reads it: the standard Choice
box reads its words and sentences, per language, from
``<behavior folder>/Aldebaran/choice_sentences.xml`` and fails on load ("File ... could
not be found. Please update your Choice box...") when the project lost it (left out of its
repository, moved).  :func:`provide_box_data` gives a behavior installed on the robot the
files its boxes read and it lacks, written from this module's own data (the project itself
is never changed).
"""
from __future__ import annotations

import posixpath
from typing import Dict, Iterator, List, Tuple

from lxml import etree

from naoqi_qicore.file_root import FileRoot

#: the Choice box's file, relative to its behavior's folder
CHOICE_SENTENCES = "Aldebaran/choice_sentences.xml"
#: folders below a behavior's folder searched for its box scripts
MAX_DEPTH = 16

#: per language: the words the Choice box listens for (``speechReco``), then what it says
#: (``tts``): each kind's alternatives ("/"-separated in the file)
_CHOICE: Dict[str, Tuple[Dict[str, List[str]], Dict[str, List[str]]]] = {
    "English": (
        {"negative": ["no", "not at all", "that's wrong"],
         "positive": ["yes", "right", "correct", "that's it"],
         "help": ["help", "help me", "what can I say", "I don't know"],
         "exit": ["stop", "exit", "quit", "cancel"],
         "repeat": ["repeat", "say it again", "pardon", "what"]},
        {"confirmation": ["Did you say %s?"],
         "enumMarks": [", ", " or "],
         "helpEnumChoices": ["You can answer nothing in particular.",
                             "You can answer %s.", "The answers I know are %s.",
                             "You can also say %s."],
         "helpEnumDefault": ["You can also say %s."],
         "helpTactile": ["You can also choose by touching my head.",
                         "Touch the front of my head for the next choice, the back to "
                         "validate."],
         "noQuestion": ["Please choose."],
         "notUnderstood": ["Sorry, I did not understand."],
         "notUnderstoodAnims": ["Sorry?", "I did not get that.", "Could you say it again?"]}),
    "French": (
        {"negative": ["non", "pas du tout", "c'est faux"],
         "positive": ["oui", "exact", "c'est ça", "d'accord"],
         "help": ["aide", "aide-moi", "que puis-je dire", "je ne sais pas"],
         "exit": ["stop", "arrête", "quitter", "annuler"],
         "repeat": ["répète", "redis-le", "pardon", "quoi"]},
        {"confirmation": ["Tu as dit %s ?"],
         "enumMarks": [", ", " ou "],
         "helpEnumChoices": ["Tu peux répondre ce que tu veux.", "Tu peux répondre %s.",
                             "Les réponses que je connais sont %s.",
                             "Tu peux aussi dire %s."],
         "helpEnumDefault": ["Tu peux aussi dire %s."],
         "helpTactile": ["Tu peux aussi choisir en touchant ma tête.",
                         "Touche l'avant de ma tête pour le choix suivant, l'arrière pour "
                         "valider."],
         "noQuestion": ["Choisis, s'il te plaît."],
         "notUnderstood": ["Pardon, je n'ai pas compris."],
         "notUnderstoodAnims": ["Pardon ?", "Je n'ai pas saisi.", "Tu peux répéter ?"]}),
}


def choice_sentences() -> bytes:
    """The Choice box's ``choice_sentences.xml``: ``<sentences>``, a ``<translation
    language=..>`` per language with its ``<speechReco>`` and ``<tts>`` kinds."""
    root = etree.Element("sentences")
    for language, (words, sentences) in _CHOICE.items():
        translation = etree.SubElement(root, "translation", language=language)
        for block, kinds in (("speechReco", words), ("tts", sentences)):
            element = etree.SubElement(translation, block)
            for kind, alternatives in kinds.items():
                etree.SubElement(element, kind, text="/".join(alternatives))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8", pretty_print=True)


#: file (relative to the behavior's folder) -> what writes it
BOX_DATA = {CHOICE_SENTENCES: choice_sentences}


def provide_box_data(behavior: FileRoot) -> List[str]:
    """Write in the converted behavior folder ``behavior`` the files of :data:`BOX_DATA`
    its box scripts read and it does not have; their relative names."""
    wanted = [name for name in BOX_DATA if not behavior.exists(name)]
    if not wanted:
        return []
    scripts = []
    for path in _scripts(behavior):
        with behavior.open_read(path) as stream:
            scripts.append(stream.read())
    written = []
    for name in wanted:
        if any(("/" + name).encode() in script for script in scripts):
            behavior.make_dirs(posixpath.dirname(name))
            behavior.write_bytes(name, BOX_DATA[name]())
            written.append(name)
    return written


def _scripts(behavior: FileRoot, folder: str = "", depth: int = 0) -> Iterator[str]:
    """The ``.py`` files in ``folder`` of ``behavior`` and below (links leading out of it
    are not followed)."""
    for name in behavior.names(folder):
        relative = posixpath.join(folder, name)
        if name.endswith(".py") and behavior.is_file(relative):
            yield relative
        elif depth < MAX_DEPTH and behavior.is_dir(relative):
            yield from _scripts(behavior, relative, depth + 1)
