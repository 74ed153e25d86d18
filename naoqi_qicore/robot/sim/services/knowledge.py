"""Simulated ALKnowledge: the robot's ontology, triples ``subject - predicate - object`` in
domains.

As NAOqi's: a triple stays until ``remove``, ``update`` or ``resetKnowledge`` takes it away;
adding a triple that exists counts one more adding (metadata ``addingCount``) and refreshes
``addedDate`` (``yyyy-MM-ddThh:mm:ssZ``); an empty subject, predicate or object in ``contains``,
``remove``, ``query`` and ``queryTriplet`` matches any value.  The ontology lives as long as the
simulated robot (a real robot keeps it on disk across reboots).
"""
import time
from dataclasses import dataclass
from typing import Any, Dict, List, Tuple

from naoqi_qicore.robot.sim.services.module import SimModule

Triple = Tuple[str, str, str]


@dataclass
class _Entry:
    identifier: str
    added: float
    count: int = 1


def _date(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


class ALKnowledge(SimModule):
    """Triples by domain, with their ids and default metadata."""

    NAME = "ALKnowledge"

    def __init__(self, sim: Any) -> None:
        super().__init__(sim)
        self._domains: Dict[str, Dict[Triple, _Entry]] = {}
        self._next_id = 1

    # -- helpers ------------------------------------------------------------------------------
    def _check_domain(self, method: str, domain: str) -> None:
        if not domain:
            raise self._error(method, "the domain is empty")

    def _check_triple(self, method: str, domain: str, triple: Triple) -> None:
        self._check_domain(method, domain)
        missing = [n for n, v in zip(("subject", "predicate", "object"), triple) if not v]
        if missing:
            raise self._error(method, "a triple needs a subject, a predicate and an object "
                                      "(empty: %s)" % ", ".join(missing))

    def _matching(self, domain: str, pattern: Triple) -> List[Triple]:
        """The triples of ``domain`` matching ``pattern`` ("" matches anything), in the
        order they were added."""
        with self._lock:
            triples = list(self._domains.get(domain, {}))
        return [t for t in triples if all(not want or want == have
                                          for want, have in zip(pattern, t))]

    def _field(self, method: str, domain: str, pattern: Triple, index: int) -> List[str]:
        self._check_domain(method, domain)
        values: List[str] = []
        for triple in self._matching(domain, pattern):
            if triple[index] not in values:
                values.append(triple[index])
        return values

    # -- adding and removing ------------------------------------------------------------------
    def add(self, domain: str, subject: str, predicate: str, object: str) -> None:  # noqa: A002
        """Add a triple (adding it again counts one more adding)."""
        triple = (subject, predicate, object)
        self._check_triple("add", domain, triple)
        with self._lock:
            triples = self._domains.setdefault(domain, {})
            entry = triples.get(triple)
            if entry is None:
                triples[triple] = _Entry(str(self._next_id), time.time())
                self._next_id += 1
            else:
                entry.count += 1
                entry.added = time.time()

    def update(self, domain: str, subject: str, predicate: str,
               object: str) -> None:  # noqa: A002
        """Replace every object of ``subject - predicate`` by ``object``."""
        triple = (subject, predicate, object)
        self._check_triple("update", domain, triple)
        with self._lock:
            for old in self._matching(domain, (subject, predicate, "")):
                if old != triple:
                    del self._domains[domain][old]
            self.add(domain, subject, predicate, object)

    def remove(self, domain: str, subject: str, predicate: str,
               object: str) -> None:  # noqa: A002
        """Remove the matching triples ("" matches any value)."""
        self._check_domain("remove", domain)
        with self._lock:
            for triple in self._matching(domain, (subject, predicate, object)):
                del self._domains[domain][triple]
            if domain in self._domains and not self._domains[domain]:
                del self._domains[domain]

    def resetKnowledge(self, domain: str) -> None:
        """Remove every triple of ``domain``."""
        self._check_domain("resetKnowledge", domain)
        with self._lock:
            self._domains.pop(domain, None)

    # -- reading ------------------------------------------------------------------------------
    def getSubject(self, domain: str, predicate: str, object: str) -> List[str]:  # noqa: A002
        """Subjects of the triples ``? - predicate - object``."""
        return self._field("getSubject", domain, ("", predicate, object), 0)

    def getPredicate(self, domain: str, subject: str, object: str) -> List[str]:  # noqa: A002
        """Predicates of the triples ``subject - ? - object``."""
        return self._field("getPredicate", domain, (subject, "", object), 1)

    def getObject(self, domain: str, subject: str, predicate: str) -> List[str]:
        """Objects of the triples ``subject - predicate - ?``."""
        return self._field("getObject", domain, (subject, predicate, ""), 2)

    def contains(self, domain: str, subject: str, predicate: str,
                 object: str) -> bool:  # noqa: A002
        """True when a triple matches ("" matches any value)."""
        self._check_domain("contains", domain)
        return bool(self._matching(domain, (subject, predicate, object)))

    def query(self, domain: str, subject: str, predicate: str,
              object: str) -> List[str]:  # noqa: A002
        """The values of the one field left empty, over the matching triples."""
        pattern = (subject, predicate, object)
        empty = [i for i, value in enumerate(pattern) if not value]
        if len(empty) != 1:
            raise self._error("query", "leave exactly one of subject, predicate and object "
                                       "empty (%d are)" % len(empty))
        return self._field("query", domain, pattern, empty[0])

    def queryTriplet(self, domain: str, subject: str, predicate: str,
                     object: str) -> List[List[str]]:  # noqa: A002
        """[[subject, predicate, object]] of the matching triples ("" matches any value)."""
        self._check_domain("queryTriplet", domain)
        return [list(t) for t in self._matching(domain, (subject, predicate, object))]

    def getId(self, domain: str, subject: str, predicate: str,
              object: str) -> str:  # noqa: A002
        """The id of a triple."""
        triple = (subject, predicate, object)
        self._check_triple("getId", domain, triple)
        with self._lock:
            entry = self._domains.get(domain, {}).get(triple)
        if entry is None:
            raise self._error("getId", "no triple %s - %s - %s in domain '%s'"
                              % (subject, predicate, object, domain))
        return entry.identifier

    def getTripletFromId(self, domain: str, id: str) -> List[str]:  # noqa: A002
        """[subject, predicate, object] of the triple with this id."""
        self._check_domain("getTripletFromId", domain)
        with self._lock:
            found = [t for t, e in self._domains.get(domain, {}).items() if e.identifier == id]
        if not found:
            raise self._error("getTripletFromId", "no triple with id '%s' in domain '%s'"
                              % (id, domain))
        return list(found[0])

    def _metadata(self, domain: str, triple: Triple) -> Dict[str, List[str]]:
        """The default metadata of a triple (``addedDate``, ``addingCount``), for tests and
        tools of the simulated robot."""
        with self._lock:
            entry = self._domains[domain][triple]
            return {"addedDate": [_date(entry.added)], "addingCount": [str(entry.count)]}
