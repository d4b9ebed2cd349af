"""Each gate's self-test fixtures, one module per gate (the corpora and cases that show the gate
refusing a known defect and passing a clean control), and :mod:`.shared`, the builders they share.

A gate's ``self_test()`` stays in the gate module (GATES.md's shape of a gate) and imports its
fixture module; a fixture module never imports its gate (where the cases run the gate, the gate
passes its ``check`` in), so the layout keeps no import cycle.
"""
