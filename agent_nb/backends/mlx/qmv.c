/* agent_nb decode kernel: see decode_kernel.py for why it exists and how it is built.

   y[t, o] = sum_i (q[o, i] * s[o, i/32] + b[o, i/32]) * x[t, i], with the weights as
   MLX packs them (affine, group 32, 4 or 8 bits, float16 scales and biases).

   The activations are written as integers too, per group of 32: x ~ d * (q1 +
   q2 / 128) with d = max|x| / 127 and q1, q2 int8 (q2 rounds what q1 leaves, so
   the error is d / 256, about 3e-5 of the group's largest value, where int8
   alone (llama.cpp's Q8 activations) leaves 1e-2 of it: enough to change greedy
   text and to make a decoded token's keys differ from a prefilled one's). A
   group's weight sum is then two integer dot products of bytes (VNNI's
   vpdpbusd, or AVX2's pmaddubsw), 128 * dot(w, q1) + dot(w, q2), exact in int32:
   about half the instructions of widening each weight to float. The bias term
   uses the exact float sum of the group's x. Every build (VNNI, AVX2, plain C)
   computes the same integer dots; only the float sum over groups is ordered
   differently. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
#include <immintrin.h>
#define QMV_SIMD 1
#if defined(__AVX512VNNI__) && defined(__AVX512VL__)
#define QMV_VNNI 1
#elif defined(__AVXVNNI__)
#define QMV_VNNI 2
#else
#define QMV_VNNI 0
#endif
#else
#define QMV_SIMD 0
#define QMV_VNNI 0
#endif

#define GROUP 32
#define MAXN 16

static inline float h2f(uint16_t h) {
#if QMV_SIMD
    return _cvtsh_ss(h);
#else
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff, bits;
    if (exp == 0) { if (man == 0) bits = sign; else { exp = 127 - 15 + 1; while (!(man & 0x400)) { man <<= 1; exp--; } man &= 0x3ff; bits = sign | (exp << 23) | (man << 13); } }
    else if (exp == 31) bits = sign | 0x7f800000 | (man << 13);
    else bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    float f; memcpy(&f, &bits, 4); return f;
#endif
}

/* 0: plain C; 1: AVX2; 2: AVX2 with VNNI dot products. */
int qmv_simd(void) { return QMV_SIMD ? (QMV_VNNI ? 2 : 1) : 0; }

/* The activations of one call as integers: for token t and group g, the 32 int8
   values of q1 at q[2*(t*I + g*32)], then the 32 of q2 (each in the weights'
   order: for 4-bit weights the group's 16 even elements, then its 16 odd ones);
   the scale d (x ~ d * (q1 + q2 / 128)); qsum = sum(128 * q1 + q2); the exact
   float sum of the group's x. */
typedef struct {
    int8_t *q;
    float *d, *sum;
    int32_t *qsum;
} Acts;

static void quantise(const float *x, int n, int I, int bits, Acts *a) {
    int G = I / GROUP;
    for (int t = 0; t < n; t++)
        for (int g = 0; g < G; g++) {
            const float *xg = x + (size_t)t * I + g * GROUP;
            int8_t *dst = a->q + 2 * ((size_t)t * I + g * GROUP);
            float amax = 0.f, sum = 0.f;
            for (int k = 0; k < GROUP; k++) { float v = fabsf(xg[k]); amax = v > amax ? v : amax; sum += xg[k]; }
            float d = amax / 127.f, inv = amax > 0.f ? 127.f / amax : 0.f;
            int32_t qs = 0;
            for (int k = 0; k < GROUP; k++) {
                int at = bits == 4 ? (k & 1) * 16 + k / 2 : k;
                int v = (int)nearbyintf(xg[k] * inv);
                float rest = xg[k] - (float)v * d;  /* at most d / 2 */
                int r = (int)nearbyintf(rest * inv * 128.f);
                r = r > 127 ? 127 : r < -127 ? -127 : r;
                dst[at] = (int8_t)v;
                dst[GROUP + at] = (int8_t)r;
                qs += 128 * v + r;
            }
            a->d[(size_t)t * G + g] = d;
            a->sum[(size_t)t * G + g] = sum;
            a->qsum[(size_t)t * G + g] = qs;
        }
}

/* sum_g bias[g] * xsum[g]: the affine bias of every group against the exact x sums. */
static float bias_dot(const uint16_t *b, const float *xsum, int G) {
    float total = 0.f;
    int g = 0;
#if QMV_SIMD
    __m256 acc = _mm256_setzero_ps();
    for (; g + 8 <= G; g += 8)
        acc = _mm256_fmadd_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(b + g))),
                              _mm256_loadu_ps(xsum + g), acc);
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    total = _mm_cvtss_f32(v);
#endif
    for (; g < G; g++) total += h2f(b[g]) * xsum[g];
    return total;
}

#if QMV_SIMD
static inline float hsum(__m256 acc) {
    __m128 v = _mm_add_ps(_mm256_castps256_ps128(acc), _mm256_extractf128_ps(acc, 1));
    v = _mm_add_ps(v, _mm_movehl_ps(v, v));
    v = _mm_add_ss(v, _mm_movehdup_ps(v));
    return _mm_cvtss_f32(v);
}

/* The 32 weights of a 4-bit group as bytes 0..15, in the packed order: the 16
   low nibbles (even elements), then the 16 high ones (odd elements). */
static inline __m256i unpack4(const uint8_t *p) {
    __m256i both = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p));
    return _mm256_and_si256(_mm256_srlv_epi64(both, _mm256_set_epi64x(4, 4, 0, 0)),
                            _mm256_set1_epi8(0x0f));
}

/* Eight partial sums of u[k] * s[k] (u unsigned bytes, s signed bytes). `wide`:
   u may exceed 127 (8-bit weights), which AVX2's pmaddubsw would saturate. */
static inline __m256i dot1(__m256i u, __m256i s, int wide) {
#if QMV_VNNI == 1
    (void)wide;
    return _mm256_dpbusd_epi32(_mm256_setzero_si256(), u, s);
#elif QMV_VNNI == 2
    (void)wide;
    return _mm256_dpbusd_avx_epi32(_mm256_setzero_si256(), u, s);
#else
    const __m256i ones = _mm256_set1_epi16(1);
    if (!wide) return _mm256_madd_epi16(_mm256_maddubs_epi16(u, s), ones);
    /* u = 128 + c with c signed: |c| * sign(s, c) stays within pmaddubsw's range;
       the 128 * s part is added back from the group's integer sum (`rows`). */
    __m256i c = _mm256_xor_si256(u, _mm256_set1_epi8((char)0x80));
    return _mm256_madd_epi16(_mm256_maddubs_epi16(_mm256_abs_epi8(c), _mm256_sign_epi8(s, c)), ones);
#endif
}

/* 128 * dot(u, q1) + dot(u, q2), for the 64 bytes of q1 then q2 at `q`. */
static inline __m256i dot(__m256i u, const int8_t *q, int wide) {
    __m256i high = dot1(u, _mm256_loadu_si256((const __m256i *)q), wide);
    __m256i low = dot1(u, _mm256_loadu_si256((const __m256i *)(q + GROUP)), wide);
    return _mm256_add_epi32(_mm256_slli_epi32(high, 7), low);
}
#endif

static inline int32_t dot1_c(const uint8_t *w, const int8_t *q, int bits) {
    int32_t total = 0;
    if (bits == 4)
        for (int k = 0; k < 16; k++) total += (w[k] & 15) * q[k] + (w[k] >> 4) * q[16 + k];
    else
        for (int k = 0; k < GROUP; k++) total += w[k] * q[k];
    return total;
}

/* The same integer dot as `dot`, in plain C. */
static inline int32_t dot_c(const uint8_t *w, const int8_t *q, int bits) {
    return 128 * dot1_c(w, q, bits) + dot1_c(w, q + GROUP, bits);
}

static void rows(const uint8_t *w, const uint16_t *s, const uint16_t *b, const Acts *a, float *y,
                 int O, int I, int n, int bits, int o0, int o1) {
    int G = I / GROUP, stride = GROUP * bits / 8;
#if QMV_SIMD && !QMV_VNNI
    /* the 128 * s part that `dot` leaves out for 8-bit weights on plain AVX2 */
    const float shift = bits == 8 ? 128.f : 0.f;
#endif
    for (int o = o0; o < o1; o++) {
        const uint8_t *wr = w + (size_t)o * G * stride;
        const uint16_t *sr = s + (size_t)o * G, *br = b + (size_t)o * G;
#if QMV_SIMD
        if (n == 1) {
            /* the decode step: two accumulators, so that consecutive groups'
               multiply-adds do not wait for each other */
            __m256 acc0 = _mm256_setzero_ps(), acc1 = _mm256_setzero_ps();
            float extra = 0.f;
            int g = 0;
            for (; g + 2 <= G; g += 2) {
                __m256i u0 = bits == 4 ? unpack4(wr + g * stride) : _mm256_loadu_si256((const __m256i *)(wr + g * stride));
                __m256i u1 = bits == 4 ? unpack4(wr + (g + 1) * stride) : _mm256_loadu_si256((const __m256i *)(wr + (g + 1) * stride));
                __m256i d0 = dot(u0, a->q + 2 * g * GROUP, bits == 8);
                __m256i d1 = dot(u1, a->q + 2 * (g + 1) * GROUP, bits == 8);
                float f0 = h2f(sr[g]) * a->d[g] / 128.f, f1 = h2f(sr[g + 1]) * a->d[g + 1] / 128.f;
                acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d0), _mm256_set1_ps(f0), acc0);
                acc1 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d1), _mm256_set1_ps(f1), acc1);
#if !QMV_VNNI
                extra += shift * f0 * (float)a->qsum[g];
                extra += shift * f1 * (float)a->qsum[g + 1];
#endif
            }
            for (; g < G; g++) {
                __m256i u = bits == 4 ? unpack4(wr + g * stride) : _mm256_loadu_si256((const __m256i *)(wr + g * stride));
                __m256i d = dot(u, a->q + 2 * g * GROUP, bits == 8);
                float f = h2f(sr[g]) * a->d[g] / 128.f;
                acc0 = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d), _mm256_set1_ps(f), acc0);
#if !QMV_VNNI
                extra += shift * f * (float)a->qsum[g];
#endif
            }
            y[o] = hsum(_mm256_add_ps(acc0, acc1)) + extra + bias_dot(br, a->sum, G);
            continue;
        }
        /* the same sums in the same order as above, token by token: a row's
           numbers do not depend on how many tokens the call takes */
        __m256 acc[MAXN][2];
        float extra[MAXN];
        for (int t = 0; t < n; t++) { acc[t][0] = acc[t][1] = _mm256_setzero_ps(); extra[t] = 0.f; }
        for (int g = 0; g < G; g++) {
            __m256i u = bits == 4 ? unpack4(wr + g * stride) : _mm256_loadu_si256((const __m256i *)(wr + g * stride));
            float sw = h2f(sr[g]);
            for (int t = 0; t < n; t++) {
                size_t at = (size_t)t * G + g;
                __m256i d = dot(u, a->q + 2 * ((size_t)t * I + g * GROUP), bits == 8);
                float f = sw * a->d[at] / 128.f;
                acc[t][g % 2] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(d), _mm256_set1_ps(f), acc[t][g % 2]);
#if !QMV_VNNI
                extra[t] += shift * f * (float)a->qsum[at];
#endif
            }
        }
        for (int t = 0; t < n; t++)
            y[(size_t)t * O + o] = hsum(_mm256_add_ps(acc[t][0], acc[t][1])) + extra[t] + bias_dot(br, a->sum + (size_t)t * G, G);
#else
        for (int t = 0; t < n; t++) {
            float total = 0.f;
            for (int g = 0; g < G; g++) {
                size_t at = (size_t)t * G + g;
                int32_t d = dot_c(wr + g * stride, a->q + 2 * ((size_t)t * I + g * GROUP), bits);
                total += h2f(sr[g]) * a->d[at] / 128.f * (float)d;
            }
            y[(size_t)t * O + o] = total + bias_dot(br, a->sum + (size_t)t * G, G);
        }
#endif
    }
}

/* Returns 0, or -1 for shapes it does not take (the caller checks them first). */
int qmv(const uint8_t *w, const uint16_t *s, const uint16_t *b, const float *x, float *y,
        int O, int I, int n, int bits, int threads) {
    if (I % GROUP || n < 1 || n > MAXN || (bits != 4 && bits != 8)) return -1;
    int G = I / GROUP;
    size_t values = (size_t)n * I, groups = (size_t)n * G;
    char *scratch = malloc(2 * values + groups * (2 * sizeof(float) + sizeof(int32_t)));
    if (!scratch) return -1;
    Acts a = {(int8_t *)scratch, (float *)(scratch + 2 * values), 0, 0};
    /* values is a multiple of 32, so the float and int arrays stay aligned */
    a.sum = a.d + groups;
    a.qsum = (int32_t *)(a.sum + groups);
    quantise(x, n, I, bits, &a);
    if (threads < 1) threads = 1;
    #pragma omp parallel for num_threads(threads) schedule(static) if(threads > 1)
    for (int part = 0; part < threads; part++) {
        int o0 = (int)((long)O * part / threads), o1 = (int)((long)O * (part + 1) / threads);
        rows(w, s, b, &a, y, O, I, n, bits, o0, o1);
    }
    free(scratch);
    return 0;
}
