/* CPython's random stream. Every expected value was printed by CPython 3.11
 * itself (random.Random), an independent implementation:
 *   Random(0).getrandbits(32) x3, Random(5).shuffle x4 (in place),
 *   Random(2).random() x2, Random(0).randrange(7) x10,
 *   Random(3).expovariate(1/9000), Random(2**40 + 17).getrandbits(32). */
#include <criterion/criterion.h>
#include <string.h>

#include "sim.h"

Test(pyrand, seed_zero_gives_cpythons_first_words)
{
    struct sim_pyrand r;
    sim_pyrand_seed(&r, 0);
    cr_expect_eq(sim_pyrand_u32(&r), 3626764237u);
    cr_expect_eq(sim_pyrand_u32(&r), 1654615998u);
    cr_expect_eq(sim_pyrand_u32(&r), 3255389356u);
}

Test(pyrand, a_seed_above_32_bits_uses_two_key_words)
{
    struct sim_pyrand r;
    sim_pyrand_seed(&r, (1ull << 40) + 17);
    cr_expect_eq(sim_pyrand_u32(&r), 2840774218u);
}

Test(pyrand, shuffle_matches_cpython_in_place)
{
    static const int32_t want[4][3] = {
        {0, 1, 2}, {0, 1, 2}, {1, 0, 2}, {2, 1, 0}}; /* v100 p100 k80 */
    struct sim_pyrand r;
    sim_pyrand_seed(&r, 5);
    int32_t a[3] = {0, 1, 2};
    for (int i = 0; i < 4; i++) {
        sim_pyrand_shuffle(&r, a, 3);
        cr_expect(memcmp(a, want[i], sizeof a) == 0, "shuffle %d", i);
    }
}

Test(pyrand, random_randrange_and_expovariate_match_cpython)
{
    struct sim_pyrand r;
    sim_pyrand_seed(&r, 2);
    cr_expect_eq(sim_pyrand_random(&r), 0.9560342718892494);
    cr_expect_eq(sim_pyrand_random(&r), 0.9478274870593494);
    static const uint32_t below[10] = {6, 3, 6, 3, 0, 2, 4, 3, 3, 6};
    sim_pyrand_seed(&r, 0);
    for (int i = 0; i < 10; i++)
        cr_expect_eq(sim_pyrand_below(&r, 7), below[i], "draw %d", i);
    sim_pyrand_seed(&r, 3);
    cr_expect_eq(sim_pyrand_expovariate(&r, 1 / 9000.0), 2445.860729103015);
}
