"""A Relax binding annotated (3, 3) whose value is (2, 2): built with the Python API (TVMScript
would refuse it), so the module is checked as loaded."""

import tvm
from tvm import relax

x = relax.Var("x", relax.TensorType((2, 2), "float32"))
y = relax.Var("y", relax.TensorType((3, 3), "float32"))
call = relax.Call(tvm.ir.Op.get("relax.add"), [x, x])
body = relax.SeqExpr([relax.BindingBlock([relax.VarBinding(y, call)])], y)
mod = tvm.IRModule({"main": relax.Function([x], body, relax.TensorType((3, 3), "float32"))})
