# The data-mining flow-size distribution: Greenberg et al., "VL2: A Scalable and Flexible Data
# Center Network", SIGCOMM 2009, Figure 2 (flow sizes in a data-mining cluster), as tabulated by
# Alizadeh et al., "pFabric: Minimal Near-Optimal Datacenter Transport", SIGCOMM 2013 (their
# table is in 1460-byte packets: 1, 2, 3, 7, 267, 2107, 66667, 666667; here in bytes).
# One point a line: BYTES PROBABILITY (the CDF, piecewise linear between points).
# Mean (piecewise linear): 7.470 MB; half the flows are a single packet, 1 % carry most bytes.
1460      0
1460      0.50
2920      0.60
4380      0.70
10220     0.80
389820    0.90
3076220   0.95
97333820  0.99
973333820 1.00
