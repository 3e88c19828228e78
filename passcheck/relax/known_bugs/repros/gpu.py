"""Kept repros of known TVM bugs (gpu): each an example passcheck draws, the subject it runs and the
property it fails, as plain data. The tests under tests/expected_findings/ check these same examples
(a test whose example is not kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_rfactor_of_a_0d_reduction_with_a_consumer', 'FuseOps@cuda:sm_90', 'relax_builds_for_gpu',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(11, 6), dtype='float32', const=False, style='narrow', seed=6186),),
        nodes=(
            Node(
                op='mean', args=(0,), attrs=(('axis', (-2, -1)), ('keepdims', False)), shape=(),
                dtype='float32',
            ),
        ),
        outputs=(1,), input_seed=106,
    ))
