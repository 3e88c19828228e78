"""What the symbolic checks report: bounds witnesses and domain issues."""

from __future__ import annotations

from dataclasses import dataclass, field

# --- bounds ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class AccessSite:
    kind: str  # "load" | "store"
    buffer: str
    indices: str
    shape: str

    def __str__(self) -> str:
        return f"{self.kind} {self.buffer}[{self.indices}] (shape [{self.shape}])"


@dataclass(frozen=True)
class OOBWitness:
    site: AccessSite
    dim: int
    index_value: int
    extent_value: int
    point: tuple[tuple[str, int], ...]  # shape vars, then loop/thread/let variables, outer first

    def describe(self) -> str:
        at = ", ".join(f"{n}={v}" for n, v in self.point) or "(no loop variables)"
        return (
            f"{self.site}: index {self.dim} evaluates to {self.index_value}, outside "
            f"[0, {self.extent_value}), at {at}"
        )


@dataclass
class BoundsResult:
    violations: list[OOBWitness] = field(default_factory=list)
    unknown: list[tuple[AccessSite, str]] = field(default_factory=list)
    accesses: int = 0
    by_intervals: int = 0  # accesses proved by the interval pass alone
    queries: int = 0
    seconds: float = 0.0
    retried: int = 0  # access groups Z3 gave up on, tried at boundary points and bit-blasted
    decided: int = 0  # of those, the ones the retries decided (a confirmed witness, or proved safe)

    @property
    def safe(self) -> bool:
        """Proved in bounds everywhere (no violation, nothing unknown)."""
        return not self.violations and not self.unknown

    def merge(self, other: BoundsResult) -> None:
        self.violations += other.violations
        self.unknown += other.unknown
        self.accesses += other.accesses
        self.by_intervals += other.by_intervals
        self.queries += other.queries
        self.seconds += other.seconds
        self.retried += other.retried
        self.decided += other.decided

    def summary(self) -> str:
        head = "in bounds" if self.safe else f"{len(self.violations)} out-of-bounds, {len(self.unknown)} unknown"
        return f"{head} ({self.accesses} accesses, {self.queries} Z3 queries, {self.seconds * 1000:.1f} ms)"


# --- domains ---------------------------------------------------------------------------------


@dataclass
class DomainIssue:
    kind: str  # "outside" | "twice" | "missing" | "guard" | "region"
    block: str
    message: str

    def describe(self) -> str:
        return f"block {self.block!r} ({self.kind}): {self.message}"


@dataclass
class DomainResult:
    issues: list[DomainIssue] = field(default_factory=list)
    unknown: list[tuple[str, str]] = field(default_factory=list)
    blocks_checked: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.issues
