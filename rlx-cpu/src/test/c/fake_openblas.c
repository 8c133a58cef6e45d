/*
 * A stand-in for libopenblas with the four functions RLX binds, for tests of how RLX treats the library it finds:
 * openblas_get_corename() reports FAKE_CORE (set with -DFAKE_CORE="..."), and the products write 42 everywhere, so a
 * test can tell whether RLX used this library or its own kernels.
 */
#ifndef FAKE_CORE
#define FAKE_CORE "Prescott"
#endif

static char core[] = FAKE_CORE;

char *openblas_get_corename(void) { return core; }

void openblas_set_num_threads(int n) { (void) n; }

void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc) {
    (void) order; (void) ta; (void) tb; (void) k; (void) alpha; (void) a; (void) lda; (void) b; (void) ldb; (void) beta;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            c[i * ldc + j] = 42.0f;
}

void cblas_sgemv(int order, int trans, int rows, int cols, float alpha, const float *a, int lda, const float *x,
                 int incx, float beta, float *y, int incy) {
    (void) order; (void) alpha; (void) a; (void) lda; (void) x; (void) incx; (void) beta;
    int n = trans ? cols : rows;
    for (int i = 0; i < n; i++)
        y[i * incy] = 42.0f;
}
