"""Gradients and the tf.train optimizers; the seeds' word2vec model (embedding_lookup,
nce_loss, minimize with a global step) trained from Python (shared/seeds/000, 001)."""
import numpy as np
import pytest

import tgraph as tf


def test_gradients_of_a_polynomial():
    x = tf.placeholder(tf.float32, [3], name="x")
    y = tf.reduce_sum(x * x * 3.0 + 2.0 * x)
    (dx,) = tf.gradients(y, [x])
    assert dx.op.name.startswith("gradients/")
    with tf.Session() as sess:
        assert sess.run(dx, {x: [0.0, 1.0, 2.0]}).tolist() == [2.0, 8.0, 14.0]
    unrelated = tf.constant(1.0)
    assert tf.gradients(y, [unrelated]) == [None]


def test_gradient_of_a_variable_and_grad_ys():
    w = tf.Variable([1.0, 2.0], name="w")
    loss = tf.reduce_sum(w * w)
    (g,) = tf.gradients(loss, [w], grad_ys=[tf.constant(0.5)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(g).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("make", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.05, 0.9),
    lambda: tf.train.AdamOptimizer(0.1),
    lambda: tf.train.AdagradOptimizer(0.5),
    lambda: tf.train.RMSPropOptimizer(0.05),
])
def test_optimizers_minimize_a_quadratic(make):
    w = tf.Variable([3.0, -2.0], name="w")
    loss = tf.reduce_sum(tf.square(w - tf.constant([1.0, 1.0])))
    step = tf.train.get_or_create_global_step()
    train_op = make().minimize(loss, global_step=step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss)
        for _ in range(60):
            sess.run(train_op)
        assert sess.run(loss) < first * 0.2
        assert sess.run(step) == 60


def test_compute_and_apply_gradients_with_fed_gradients():
    # seeds/001: gradients replaced by placeholders, only they are fed.
    X = tf.placeholder(tf.float32, shape=[None, 2])
    w = tf.Variable([[1.0], [1.0]], name="w")
    loss = tf.reduce_mean(tf.matmul(X, w))
    opt = tf.train.GradientDescentOptimizer(1.0)
    grads_and_vars = opt.compute_gradients(loss)
    assert [v.name for _, v in grads_and_vars] == ["w:0"]
    placeholders, feed_pairs = [], []
    for grad, variable in grads_and_vars:
        p = tf.placeholder(tf.float32, shape=grad.get_shape())
        placeholders.append(p)
        feed_pairs.append((p, variable))
    training_op = opt.apply_gradients(feed_pairs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(training_op, feed_dict={placeholders[0]: [[9.0], [1.0]]})
        assert sess.run(w).tolist() == [[-8.0], [0.0]]


def test_slots_and_learning_rate_tensor():
    w = tf.Variable([1.0], name="w")
    lr = tf.placeholder(tf.float32, [], name="lr")
    opt = tf.train.AdamOptimizer(lr)
    train_op = opt.minimize(tf.reduce_sum(w * w))
    assert opt.get_slot(w, "m").op.name == "w/Adam"
    assert opt.get_slot(w, "v").op.name == "w/Adam_1"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train_op, {lr: 0.0})
        assert sess.run(w).tolist() == [1.0]
        sess.run(train_op, {lr: 0.5})
        assert sess.run(w)[0] < 1.0


def test_word2vec_nce_loss_trains():
    vocab_size, embed_size, batch_size, num_sampled = 50, 8, 16, 5
    tf.set_random_seed(7)
    with tf.name_scope("data"):
        center_words = tf.placeholder(tf.int32, shape=[batch_size], name="center_words")
        target_words = tf.placeholder(tf.int32, shape=[batch_size, 1], name="target_words")
    with tf.device("/cpu:0"):
        with tf.name_scope("embed"):
            embed_matrix = tf.Variable(tf.random_uniform([vocab_size, embed_size], -1.0, 1.0),
                                       name="embed_matrix")
        with tf.name_scope("loss"):
            embed = tf.nn.embedding_lookup(embed_matrix, center_words, name="embed")
            nce_weight = tf.Variable(tf.truncated_normal([vocab_size, embed_size],
                                                         stddev=1.0 / (embed_size ** 0.5)),
                                     name="nce_weight")
            nce_bias = tf.Variable(tf.zeros([vocab_size]), name="nce_bias")
            loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weight, biases=nce_bias,
                                                 labels=target_words, inputs=embed,
                                                 num_sampled=num_sampled,
                                                 num_classes=vocab_size), name="loss")
    global_step = tf.Variable(0, dtype=tf.int32, trainable=False, name="global_step")
    optimizer = tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
    with tf.name_scope("summaries"):
        tf.summary.scalar("loss", loss)
        summary_op = tf.summary.merge_all()
    assert center_words.op.name == "data/center_words"
    assert embed_matrix.op.name == "embed/embed_matrix"
    assert loss.op.name == "loss/loss"
    rng = np.random.RandomState(0)
    centers = rng.randint(0, vocab_size, batch_size).astype(np.int32)
    targets = ((centers + 1) % vocab_size).reshape(-1, 1).astype(np.int32)
    with tf.Session(config=tf.ConfigProto(log_device_placement=False)) as sess:
        sess.run(tf.global_variables_initializer())
        assert global_step.eval() == 0
        feed = {center_words: centers, target_words: targets}
        losses = []
        for _ in range(40):
            loss_batch, _, summary = sess.run([loss, optimizer, summary_op], feed_dict=feed)
            losses.append(loss_batch)
        assert global_step.eval() == 40
    assert np.mean(losses[-5:]) < np.mean(losses[:5])
    assert isinstance(summary, bytes) or summary.dtype == object
    s = tf.Summary()
    s.ParseFromString(summary if isinstance(summary, bytes) else summary.item())
    assert s.value[0].tag == "summaries/loss"


def test_conv2d_seed_example():
    img = tf.constant(1.0, shape=[1, 5, 5, 3])
    k = tf.constant(1.0, shape=[3, 3, 3, 1])
    kernel = tf.Variable(k)
    y2 = tf.nn.conv2d(img, kernel, strides=[1, 2, 2, 1], padding="SAME")
    assert [o.name for o in tf.get_default_graph().get_operations()] == [
        "Const", "Const_1", "Variable", "Variable/Assign", "Variable/read", "Conv2D"]
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError):
            sess.run(y2)
        sess.run(tf.global_variables_initializer())
        out = sess.run(y2)
    assert out.shape == (1, 3, 3, 1)
    assert out[0, :, :, 0].tolist() == [[12.0, 18.0, 12.0], [18.0, 27.0, 18.0],
                                       [12.0, 18.0, 12.0]]


def test_mlp_with_losses_and_dropout():
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 4])
    labels = tf.placeholder(tf.int64, [None])
    keep = tf.placeholder_with_default(1.0, [])
    w1 = tf.get_variable("w1", [4, 8], initializer=tf.glorot_uniform_initializer(seed=1))
    b1 = tf.get_variable("b1", [8], initializer=tf.zeros_initializer())
    h = tf.nn.dropout(tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1)), keep_prob=keep)
    w2 = tf.get_variable("w2", [8, 3], initializer=tf.random_normal_initializer(stddev=0.1))
    logits = tf.matmul(h, w2)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    loss += 1e-4 * tf.nn.l2_loss(w1)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    rng = np.random.RandomState(0)
    xs = rng.randn(64, 4).astype(np.float32)
    ys = (xs[:, 0] > 0).astype(np.int64) + (xs[:, 1] > 0).astype(np.int64)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = sess.run(loss, {x: xs, labels: ys})
        for _ in range(100):
            sess.run(train, {x: xs, labels: ys, keep: 0.9})
        last = sess.run(loss, {x: xs, labels: ys})
        acc = (sess.run(tf.argmax(logits, 1), {x: xs}) == ys).mean()
    assert last < first * 0.5 and acc > 0.8


def test_compute_gradients_with_a_var_list_builds_the_gradients_once():
    w = tf.Variable([1.0, 2.0], name="w")
    b = tf.Variable(0.5, name="b")
    loss = tf.reduce_sum(w * w) + b
    before = len(tf.get_default_graph().get_operations())
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss, var_list=[w])
    assert [v.name for _, v in pairs] == ["w:0"]
    scopes = {op.name.split("/")[0] for op in tf.get_default_graph().get_operations()[before:]}
    assert scopes == {"gradients"}, scopes  # no second "gradients_1" copy
    # Without a var_list: every trainable variable, also built once.
    before = len(tf.get_default_graph().get_operations())
    pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(loss)
    assert sorted(v.name for _, v in pairs) == ["b:0", "w:0"]
    scopes = {op.name.split("/")[0] for op in tf.get_default_graph().get_operations()[before:]}
    assert scopes == {"gradients_1"}, scopes
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(pairs[0][0] if pairs[0][1].name == "w:0" else pairs[1][0]).tolist() == [2.0, 4.0]
