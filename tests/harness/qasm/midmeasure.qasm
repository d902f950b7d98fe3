OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
h q;
c[1] = measure q[1];
x q[1];
