// OpenQASM 2 with every kind of statement the importer must handle: user-defined
// gates (one calling another), qelib1's u1/u2/u3, cu3, rzz, cswap, a barrier and
// final measurements
OPENQASM 2.0;
include "qelib1.inc";
gate entangle(theta) a, b { h a; cx a, b; rz(theta) b; }
gate twice(theta) a, b { entangle(theta) a, b; entangle(theta / 2) b, a; u2(0.1, pi) a; }
qreg q[3];
qreg r[2];
creg c[5];
u1(0.3) q[0];
u2(0.1, 0.4) q[1];
u3(0.1, 0.2, 0.3) q[2];
cu3(0.5, 0.6, 0.7) q[0], r[1];
rzz(0.9) q[1], q[2];
cswap q[0], r[0], q[2];
twice(1.2) q[2], r[0];
sdg r[1];
tdg q[1];
ccx q[0], q[1], r[1];
cu1(0.25) r[0], q[0];
crz(-0.4) q[2], q[1];
sx r[0];
h q;
barrier q, r;
measure q[0] -> c[0];
measure q[1] -> c[1];
measure q[2] -> c[2];
measure r[0] -> c[3];
measure r[1] -> c[4];
