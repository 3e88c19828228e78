"""Kept repros of known TVM bugs (gpu_2): each an example passcheck draws, the subject it runs and the
property it fails, as plain data. The tests check these same examples (a test whose example is not
kept here fails).
"""

from passcheck.core.known import keep_repro
from passcheck.relax.spec import GraphSpec, Node, TensorDecl

keep_repro('test_dlight_general_reduction_of_an_empty_tensor_fails_in_compute_at', 'FuseOps@cuda:sm_90', 'relax_builds_for_gpu',
    GraphSpec(
        inputs=(TensorDecl(name='p1', shape=(0, 'n', 5, 2), dtype='float32', const=False, seed=12581),),
        nodes=(
            Node(
                op='argmax', args=(0,), attrs=(('axis', 2), ('keepdims', False)), shape=(0, 'n', 2),
                dtype='int64',
            ),
        ),
        outputs=(1,), sym_sizes=(('n', 5),),
    ))

keep_repro('test_fuse_of_loops_one_of_extent_zero_divides_by_zero', 'FuseOps@cuda:sm_90', 'relax_builds_for_gpu',
    GraphSpec(
        inputs=(TensorDecl(name='p0', shape=(11, 0, 7, 2), dtype='float32', const=False, style='wide', seed=16933),
                TensorDecl(name='p2', shape=(), dtype='float32', const=False, style='narrow', seed=722)),
        nodes=(Node(op='add', args=(1, 0), attrs=(), shape=(11, 0, 7, 2), dtype='float32'),),
        outputs=(2,), input_seed=65535, tensor_inputs=True,
    ))
