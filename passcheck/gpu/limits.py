"""What a CUDA launch may ask of the device: the limits every compute capability since 3.0
shares (CUDA C Programming Guide, "Technical Specifications per Compute Capability")."""

from __future__ import annotations

from dataclasses import dataclass

THREAD_TAGS = ("threadIdx.x", "threadIdx.y", "threadIdx.z")
BLOCK_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z")


@dataclass(frozen=True)
class DeviceLimits:
    threads_per_block: int = 1024
    block_dims: tuple[int, int, int] = (1024, 1024, 64)
    grid_dims: tuple[int, int, int] = (2**31 - 1, 65535, 65535)
    # Static shared memory per block: 48 KiB without the opt-in for more (dynamic only).
    shared_bytes: int = 48 * 1024

    def extent_limit(self, tag: str) -> int | None:
        """The largest extent a loop bound to ``tag`` may have (None: not a launch dimension,
        e.g. a virtual thread)."""
        if tag in THREAD_TAGS:
            return self.block_dims[THREAD_TAGS.index(tag)]
        if tag in BLOCK_TAGS:
            return self.grid_dims[BLOCK_TAGS.index(tag)]
        return None


CUDA_LIMITS = DeviceLimits()
