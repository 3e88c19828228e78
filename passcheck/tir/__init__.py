"""The TIR family: kernel drawing, schedule primitives and sequences, lowering, execution."""
