# The web-search flow-size distribution: the background flows measured in a production web-search
# cluster by Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Figure 4 (flow sizes),
# as tabulated for simulation by the pFabric (SIGCOMM 2013) and HPCC (SIGCOMM 2019) authors.
# One point a line: BYTES PROBABILITY (the CDF, piecewise linear between points).
# Mean (piecewise linear): 1.711 MB (`wiresum cluster` prints it); 53 % of the flows are under
# 100 KB, and they carry under 2 % of the bytes.
0        0
10000    0.15
20000    0.20
30000    0.30
50000    0.40
80000    0.53
200000   0.60
1000000  0.70
2000000  0.80
5000000  0.90
10000000 0.97
30000000 1.00
