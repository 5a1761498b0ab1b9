"""The gates of the current run: accuracy cases (score against threshold) and MTP
acceptance (a case's `min_acceptance_rate`; an acceptance length on every MTP point and
case that ran). The launcher applies the same gates to a case's own result; here they
are applied again to the records, so a run's verdict does not depend on a job's exit code.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypedDict

from generator.core.record_rules import is_infrastructure, needs_acceptance

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from generator.results.store import Store

ACCURACY = "accuracy"
ACCEPTANCE = "acceptance"


class GateDoc(TypedDict):
    """A failed gate in the verdicts JSON and the run summary (Gate)."""

    gate: str
    kind: str
    id: str
    subject: str
    message: str


@dataclass(frozen=True, kw_only=True)
class Gate:
    """A failed gate: `gate` is ACCURACY or ACCEPTANCE."""

    gate: str
    kind: str
    id: str
    subject: str
    message: str

    def as_dict(self) -> GateDoc:
        return {
            "gate": self.gate,
            "kind": self.kind,
            "id": self.id,
            "subject": self.subject,
            "message": self.message,
        }

    def __str__(self) -> str:
        return f"{self.gate} gate: {self.kind} {self.id}: {self.message}"


def _num(value: float | None) -> str:
    return "null" if value is None else f"{value:.4g}"


def _case(row: dict[str, Any]) -> list[tuple[str, str]]:
    status, error = row["status"], row["error"]
    suffix = f": {error}" if error else ""
    if status in ("error", "timeout"):
        return [(ACCURACY, f"status {status}{suffix}")]
    found = []
    score, threshold = row["score"], row["threshold"]
    if score is None or threshold is None or score < threshold:
        found.append(
            (ACCURACY, f"{row['metric']} {_num(score)} below the threshold {_num(threshold)}")
        )
    wanted, rate = row["min_acceptance_rate"], row["acceptance_rate"]
    if needs_acceptance(row["spec"]) and row["accept_length"] is None:
        found.append((ACCEPTANCE, "no acceptance length from a speculative-decoding server"))
    elif wanted is not None and (rate is None or rate < wanted):
        found.append(
            (ACCEPTANCE, f"acceptance rate {_num(rate)} below min_acceptance_rate {_num(wanted)}")
        )
    if not found and (status == "failed" or row["passed"] is False):
        found.append((ACCURACY, f"failed{suffix}"))
    return found


def gates(store: Store) -> Iterator[Gate]:
    """Every failed gate of the CURRENT records (cancelled and infrastructure-failed
    records are missing data, not failed gates)."""
    for row in store.rows(
        "SELECT * FROM records WHERE role = 'current' ORDER BY kind, config, case_id, id"
    ):
        if row["status"] == "cancelled" or is_infrastructure(row["reason"], row["error"]):
            continue
        if row["kind"] == "case":
            subject = row["case_id"]
            found = _case(row)
        else:
            subject = row["config"]
            lacks = (
                row["status"] == "ok"
                and needs_acceptance(row["spec"], row["osl"])
                and row["accept_length"] is None
            )
            found = [(ACCEPTANCE, "MTP point without acceptance length")] if lacks else []
        for gate, message in found:
            yield Gate(gate=gate, kind=row["kind"], id=row["id"], subject=subject, message=message)
