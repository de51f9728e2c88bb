/* libcalls_cudnn.c - the cuDNN rows: legacy-API ops and descriptor setters.
 *
 * Every tensor's size comes from its descriptor argument through
 * libcall_env.descriptor_bytes (the walker remembers what the setters at
 * the bottom of this table said about each descriptor variable).  Outputs
 * blended with beta (y = alpha*op + beta*y) are READWRITE with beta as
 * .aux, WRITE only when the walker proves beta == 0.  Convolution
 * workspaces are scratch (LC_SCRATCH: an exact write); reserve spaces
 * are upper bounds (cuDNN may use less).  Optional pointers
 * (batch-norm saved statistics) may be NULL.  Backward convolutions are
 * flagged nondeterministic: several of their algorithms accumulate with
 * atomics.  Signatures: cuDNN 9 cudnn_ops.h, cudnn_cnn.h, cudnn_graph.h. */
#include "analysis/libcalls_table.h"

#define OPT LIBCALLS_OPTIONAL
#define NONDET LIBCALL_NONDETERMINISTIC
/* per-sample routines: include/tidal/cudnn.h has a wrapper for each */
#define BATCH LIBCALL_BATCH_SPLIT

const libcalls_row libcalls_cudnn_rows[] = {
    /* (h, alpha, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, beta, yDesc, y) */
    LC_OP_ROW("cudnnConvolutionForward", CUDNN, 13, 0, NULL, LC_NOP,
              LC_DESC("x", 3, READ, 2, -1, 0), LC_DESC("w", 5, READ, 4, -1, 0),
              LC_SCRATCH("workspace", 8, 9), LC_DESC("y", 12, READWRITE, 11, 10, 0)),
    /* (h, alpha, wDesc, w, dyDesc, dy, convDesc, algo, ws, wsSize, beta, dxDesc, dx) */
    LC_OP_ROW("cudnnConvolutionBackwardData", CUDNN, 13, NONDET, NULL, LC_NOP,
              LC_DESC("w", 3, READ, 2, -1, 0), LC_DESC("dy", 5, READ, 4, -1, 0),
              LC_SCRATCH("workspace", 8, 9), LC_DESC("dx", 12, READWRITE, 11, 10, 0)),
    /* (h, alpha, xDesc, x, dyDesc, dy, convDesc, algo, ws, wsSize, beta, dwDesc, dw) */
    LC_OP_ROW("cudnnConvolutionBackwardFilter", CUDNN, 13, NONDET, NULL, LC_NOP,
              LC_DESC("x", 3, READ, 2, -1, 0), LC_DESC("dy", 5, READ, 4, -1, 0),
              LC_SCRATCH("workspace", 8, 9), LC_DESC("dw", 12, READWRITE, 11, 10, 0)),
    /* (h, alpha, dyDesc, dy, beta, dbDesc, db) */
    LC_OP_ROW("cudnnConvolutionBackwardBias", CUDNN, 7, 0, NULL, LC_NOP,
              LC_DESC("dy", 3, READ, 2, -1, 0), LC_DESC("db", 6, READWRITE, 5, 4, 0)),
    /* (h, alpha1, xDesc, x, wDesc, w, convDesc, algo, ws, wsSize, alpha2,
     *  zDesc, z, biasDesc, bias, activationDesc, yDesc, y): y is not blended */
    LC_OP_ROW("cudnnConvolutionBiasActivationForward", CUDNN, 18, 0, NULL, LC_NOP,
              LC_DESC("x", 3, READ, 2, -1, 0), LC_DESC("w", 5, READ, 4, -1, 0),
              LC_SCRATCH("workspace", 8, 9), LC_DESC("z", 12, READ, 11, -1, 0),
              LC_DESC("bias", 14, READ, 13, -1, 0), LC_DESC("y", 17, WRITE, 16, -1, 0)),
    /* (h, activationDesc, alpha, xDesc, x, beta, yDesc, y) */
    LC_OP_ROW("cudnnActivationForward", CUDNN, 8, BATCH, NULL, LC_NOP,
              LC_DESC("x", 4, READ, 3, -1, 0), LC_DESC("y", 7, READWRITE, 6, 5, 0)),
    /* (h, activationDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx) */
    LC_OP_ROW("cudnnActivationBackward", CUDNN, 12, BATCH, NULL, LC_NOP,
              LC_DESC("y", 4, READ, 3, -1, 0), LC_DESC("dy", 6, READ, 5, -1, 0),
              LC_DESC("x", 8, READ, 7, -1, 0), LC_DESC("dx", 11, READWRITE, 10, 9, 0)),
    /* (h, poolingDesc, alpha, xDesc, x, beta, yDesc, y) */
    LC_OP_ROW("cudnnPoolingForward", CUDNN, 8, BATCH, NULL, LC_NOP,
              LC_DESC("x", 4, READ, 3, -1, 0), LC_DESC("y", 7, READWRITE, 6, 5, 0)),
    /* (h, poolingDesc, alpha, yDesc, y, dyDesc, dy, xDesc, x, beta, dxDesc, dx) */
    LC_OP_ROW("cudnnPoolingBackward", CUDNN, 12, BATCH, NULL, LC_NOP,
              LC_DESC("y", 4, READ, 3, -1, 0), LC_DESC("dy", 6, READ, 5, -1, 0),
              LC_DESC("x", 8, READ, 7, -1, 0), LC_DESC("dx", 11, READWRITE, 10, 9, 0)),
    /* (h, algo, mode, alpha, xDesc, x, beta, yDesc, y) */
    LC_OP_ROW("cudnnSoftmaxForward", CUDNN, 9, BATCH, NULL, LC_NOP,
              LC_DESC("x", 5, READ, 4, -1, 0), LC_DESC("y", 8, READWRITE, 7, 6, 0)),
    /* (h, algo, mode, alpha, yDesc, y, dyDesc, dy, beta, dxDesc, dx) */
    LC_OP_ROW("cudnnSoftmaxBackward", CUDNN, 11, BATCH, NULL, LC_NOP,
              LC_DESC("y", 5, READ, 4, -1, 0), LC_DESC("dy", 7, READ, 6, -1, 0),
              LC_DESC("dx", 10, READWRITE, 9, 8, 0)),
    /* (h, mode, alpha, beta, xDesc, x, yDesc, y, bnDesc, scale, bias, factor,
     *  runningMean, runningVar, eps, saveMean, saveInvVar) */
    LC_OP_ROW("cudnnBatchNormalizationForwardTraining", CUDNN, 17, 0, NULL, LC_NOP,
              LC_DESC("x", 5, READ, 4, -1, 0), LC_DESC("y", 7, READWRITE, 6, 3, 0),
              LC_DESC("scale", 9, READ, 8, -1, 0), LC_DESC("bias", 10, READ, 8, -1, 0),
              LC_DESC("running_mean", 12, READWRITE, 8, -1, OPT),
              LC_DESC("running_var", 13, READWRITE, 8, -1, OPT),
              LC_DESC("save_mean", 15, WRITE, 8, -1, OPT),
              LC_DESC("save_inv_var", 16, WRITE, 8, -1, OPT)),
    /* (h, mode, alpha, beta, xDesc, x, yDesc, y, bnDesc, scale, bias, mean, var, eps) */
    LC_OP_ROW("cudnnBatchNormalizationForwardInference", CUDNN, 14, 0, NULL, LC_NOP,
              LC_DESC("x", 5, READ, 4, -1, 0), LC_DESC("y", 7, READWRITE, 6, 3, 0),
              LC_DESC("scale", 9, READ, 8, -1, 0), LC_DESC("bias", 10, READ, 8, -1, 0),
              LC_DESC("mean", 11, READ, 8, -1, 0), LC_DESC("var", 12, READ, 8, -1, 0)),
    /* (h, mode, alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff,
     *  xDesc, x, dyDesc, dy, dxDesc, dx, bnDesc, scale, dScale, dBias, eps,
     *  savedMean, savedInvVar) */
    LC_OP_ROW("cudnnBatchNormalizationBackward", CUDNN, 19, 0, NULL, LC_NOP,
              LC_DESC("x", 7, READ, 6, -1, 0), LC_DESC("dy", 9, READ, 8, -1, 0),
              LC_DESC("dx", 11, READWRITE, 10, 3, 0), LC_DESC("scale", 13, READ, 12, -1, 0),
              LC_DESC("dscale", 14, READWRITE, 12, 5, 0),
              LC_DESC("dbias", 15, READWRITE, 12, 5, 0),
              LC_DESC("saved_mean", 17, READ, 12, -1, OPT),
              LC_DESC("saved_inv_var", 18, READ, 12, -1, OPT)),
    /* (h, alpha, aDesc, A, beta, cDesc, C): C = alpha*A + beta*C */
    LC_OP_ROW("cudnnAddTensor", CUDNN, 7, 0, NULL, LC_NOP,
              LC_DESC("A", 3, READ, 2, -1, 0), LC_DESC("C", 6, READWRITE, 5, 4, 0)),
    /* (h, opDesc, alpha1, aDesc, A, alpha2, bDesc, B, beta, cDesc, C) */
    LC_OP_ROW("cudnnOpTensor", CUDNN, 11, 0, NULL, LC_NOP,
              LC_DESC("A", 4, READ, 3, -1, 0), LC_DESC("B", 7, READ, 6, -1, 0),
              LC_DESC("C", 10, READWRITE, 9, 8, 0)),
    /* (h, yDesc, y, alpha) */
    LC_OP_ROW("cudnnScaleTensor", CUDNN, 4, 0, NULL, LC_NOP, LC_DESC("y", 2, READWRITE, 1, -1, 0)),
    /* (h, yDesc, y, valuePtr) */
    LC_OP_ROW("cudnnSetTensor", CUDNN, 4, 0, NULL, LC_NOP, LC_DESC("y", 2, WRITE, 1, -1, 0)),
    /* (h, dropoutDesc, xDesc, x, yDesc, y, reserve, reserveSize): RNG state */
    LC_OP_ROW("cudnnDropoutForward", CUDNN, 8, NONDET, NULL, LC_NOP,
              LC_DESC("x", 3, READ, 2, -1, 0), LC_DESC("y", 5, WRITE, 4, -1, 0),
              LC_WS("reserve", 6, WRITE, 7)),
    /* (h, dropoutDesc, dyDesc, dy, dxDesc, dx, reserve, reserveSize) */
    LC_OP_ROW("cudnnDropoutBackward", CUDNN, 8, 0, NULL, LC_NOP,
              LC_DESC("dy", 3, READ, 2, -1, 0), LC_DESC("dx", 5, WRITE, 4, -1, 0),
              LC_WS("reserve", 6, READ, 7)),

    /* Descriptor setters: sp[0] the descriptor, then the formula's arguments. */
    /* Kept for the queries: a tensor's (dataType, n, c, h, w), a filter's
     * (dataType, format, k, c, h, w), a convolution's (pad_h, pad_w, u, v,
     * dilation_h, dilation_w). */
    /* (desc, format, dataType, n, c, h, w) */
    LC_SETTER_DIMS_ROW("cudnnSetTensor4dDescriptor", CUDNN, 7, libcalls_setter_dims,
                       LC_DT(2, CUDNN), 2, 5, 0, 3, 4, 5, 6),
    /* (desc, dataType, n, c, h, w, nStride, cStride, hStride, wStride) */
    LC_SETTER_DIMS_ROW("cudnnSetTensor4dDescriptorEx", CUDNN, 10, libcalls_setter_strided4d,
                       LC_DT(1, CUDNN), 1, 5, 0, 2),
    /* (desc, dataType, format, k, c, h, w) */
    LC_SETTER_DIMS_ROW("cudnnSetFilter4dDescriptor", CUDNN, 7, libcalls_setter_dims,
                       LC_DT(1, CUDNN), 1, 6, 0, 3, 4, 5, 6),
    /* (desc, pad_h, pad_w, u, v, dilation_h, dilation_w, mode, computeType):
     * describes no tensor (bytes unknown); its parameters feed the query */
    LC_SETTER_DIMS_ROW("cudnnSetConvolution2dDescriptor", CUDNN, 9, libcalls_setter_unknown,
                       LC_E(0), 1, 6, 0),
    /* Nd forms: the dimensions are in an array the model does not read. */
    LC_SETTER_ROW("cudnnSetTensorNdDescriptor", CUDNN, 5, libcalls_setter_unknown,
                  LC_DT(1, CUDNN), 0),
    LC_SETTER_ROW("cudnnSetTensorNdDescriptorEx", CUDNN, 5, libcalls_setter_unknown,
                  LC_DT(2, CUDNN), 0),
    LC_SETTER_ROW("cudnnSetFilterNdDescriptor", CUDNN, 5, libcalls_setter_unknown,
                  LC_DT(1, CUDNN), 0),

    /* Queries: (convDesc, inputTensorDesc, filterDesc, &n, &c, &h, &w) */
    LC_QUERY_ROW("cudnnGetConvolution2dForwardOutputDim", CUDNN, 7,
                 libcalls_query_conv2d_fwd_dims, 3, 3, 4, 0, 1, 2),
    /* Workspace sizes, from the model (Note [workspace sizes] in
     * libcalls_formulas.c): the descriptors in the order (conv, x, filter,
     * y) whatever the call's own order. */
    /* (h, xDesc, wDesc, convDesc, yDesc, algo, &size) */
    LC_QUERY_ROW("cudnnGetConvolutionForwardWorkspaceSize", CUDNN, 7,
                 libcalls_query_conv2d_workspace, 4, 6, 1, 3, 1, 2, 4),
    /* (h, xDesc, dyDesc, convDesc, dwDesc, algo, &size) */
    LC_QUERY_ROW("cudnnGetConvolutionBackwardFilterWorkspaceSize", CUDNN, 7,
                 libcalls_query_conv2d_workspace, 4, 6, 1, 3, 1, 4, 2),
    /* (h, wDesc, dyDesc, convDesc, dxDesc, algo, &size) */
    LC_QUERY_ROW("cudnnGetConvolutionBackwardDataWorkspaceSize", CUDNN, 7,
                 libcalls_query_conv2d_workspace, 4, 6, 1, 3, 4, 1, 2),
    LC_TABLE_END,
};
