OPENQASM 3.0;
include "stdgates.inc";
// a gate with a modifier-built body, controls on |0>, powers, inverses and a global phase
gate layer(t) a, b { ry(t) a; cz a, b; ctrl @ rx(t / 3) b, a; }
qubit[4] q;
bit[4] c;
h q[0];
layer(0.7) q[0], q[1];
negctrl @ x q[1], q[2];
ctrl(2) @ p(0.3) q[0], q[1], q[3];
inv @ t q[2];
pow(2) @ s q[3];
U(0.1, 0.2, 0.3) q[1];
cy q[3], q[0];
swap q[0], q[2];
gphase(0.5);
c = measure q;
