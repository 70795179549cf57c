/* pyrand.c -- CPython's `random.Random` stream, bit for bit.
 *
 * Reproducing another simulator (Gavel's) round by round needs the very
 * numbers its Python code drew: MT19937 (Matsumoto & Nishimura, 1998) seeded
 * the way CPython seeds it from an int (init_by_array over the 32-bit words
 * of |seed|), and CPython's derived draws: getrandbits(k) takes the top k
 * bits of one 32-bit output, random() joins 27 and 26 bits into a double,
 * _randbelow(n) draws bit_length(n) bits until the value is below n.
 * Everything else in hetsim draws from seeded GSL generators. */
#include <math.h>

#include "sim_internal.h"

#define N SIM_PYRAND_N
#define M 397
#define MATRIX_A 0x9908b0dfu
#define UPPER 0x80000000u
#define LOWER 0x7fffffffu

static void init_genrand(struct sim_pyrand *r, uint32_t s)
{
    r->mt[0] = s;
    for (int i = 1; i < N; i++)
        r->mt[i] =
            1812433253u * (r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) + (uint32_t)i;
    r->mti = N;
}

void sim_pyrand_seed(struct sim_pyrand *r, uint64_t seed)
{
    uint32_t key[2] = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    int klen = key[1] ? 2 : 1; /* CPython: seed 0 is the one word [0] */
    init_genrand(r, 19650218u);
    int i = 1, j = 0;
    for (int k = N > klen ? N : klen; k; k--) {
        r->mt[i] =
            (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1664525u)) +
            key[j] + (uint32_t)j;
        i++;
        j++;
        if (i >= N) {
            r->mt[0] = r->mt[N - 1];
            i = 1;
        }
        if (j >= klen)
            j = 0;
    }
    for (int k = N - 1; k; k--) {
        r->mt[i] =
            (r->mt[i] ^ ((r->mt[i - 1] ^ (r->mt[i - 1] >> 30)) * 1566083941u)) -
            (uint32_t)i;
        i++;
        if (i >= N) {
            r->mt[0] = r->mt[N - 1];
            i = 1;
        }
    }
    r->mt[0] = 0x80000000u;
    r->mti = N;
}

uint32_t sim_pyrand_u32(struct sim_pyrand *r)
{
    static const uint32_t mag01[2] = {0u, MATRIX_A};
    if (r->mti >= N) {
        int k;
        uint32_t y;
        for (k = 0; k < N - M; k++) {
            y = (r->mt[k] & UPPER) | (r->mt[k + 1] & LOWER);
            r->mt[k] = r->mt[k + M] ^ (y >> 1) ^ mag01[y & 1u];
        }
        for (; k < N - 1; k++) {
            y = (r->mt[k] & UPPER) | (r->mt[k + 1] & LOWER);
            r->mt[k] = r->mt[k + (M - N)] ^ (y >> 1) ^ mag01[y & 1u];
        }
        y = (r->mt[N - 1] & UPPER) | (r->mt[0] & LOWER);
        r->mt[N - 1] = r->mt[M - 1] ^ (y >> 1) ^ mag01[y & 1u];
        r->mti = 0;
    }
    uint32_t y = r->mt[r->mti++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

double sim_pyrand_random(struct sim_pyrand *r)
{
    uint32_t a = sim_pyrand_u32(r) >> 5, b = sim_pyrand_u32(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint32_t sim_pyrand_below(struct sim_pyrand *r, uint32_t n)
{
    SIM_ASSERT(n > 0);
    int k = 0;
    while (k < 32 && (n >> k))
        k++; /* n.bit_length() */
    for (;;) {
        uint32_t v = sim_pyrand_u32(r) >> (32 - k);
        if (v < n)
            return v;
    }
}

void sim_pyrand_shuffle(struct sim_pyrand *r, int32_t *a, uint32_t n)
{
    for (uint32_t i = n; i-- > 1;) {
        uint32_t j = sim_pyrand_below(r, i + 1);
        int32_t t = a[i];
        a[i] = a[j];
        a[j] = t;
    }
}

double sim_pyrand_expovariate(struct sim_pyrand *r, double lambd)
{
    return -log(1.0 - sim_pyrand_random(r)) / lambd;
}
