package org.sodm.jobs.train;

import static org.junit.jupiter.api.Assertions.*;

import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sodm.data.LibsvmParser;
import org.sodm.jobs.support.SodmConf;
import org.sodm.model.MulticlassModel;
import org.sodm.testing.LocalConf;

/**
 * --probability with BQO: Platt's sigmoid fitted on the internal folds' decision values. On svmguide1.t the label is the argmax
 * of the probabilities, the probabilities are calibrated (over all test rows, the mean probability of the predicted class within
 * 2 points of the accuracy) and the log-loss is below that of the constant 0.5 (ln 2).
 */
class LinearProbabilityTest {
  @TempDir Path tmp;

  @Test
  void bqoProbabilitiesAreCalibratedOnTheTestSet() throws Exception {
    Configuration conf = LinearCrossValidationTest.bqoHinge(tmp);
    conf.set(SodmConf.INGEST_SCALE, "0,1");
    conf.setBoolean("sodm.train.bias", true);
    conf.setBoolean("sodm.train.probability", true);
    TrainPipeline.Result r = TrainPipeline.run(conf, new TrainPipeline.Request(List.of(LocalConf.sampleData("svmguide1").toString()), null,
        new org.apache.hadoop.fs.Path(tmp.resolve("m").toString()), false), l -> {});
    MulticlassModel m = (MulticlassModel) r.model();
    assertTrue(m.hasProbabilities());
    assertTrue(m.platt(0).a() < 0, "A = " + m.platt(0).a() + ": a larger decision value must mean a larger P(+1)");
    double sumProb = 0;
    double logLoss = 0;
    int correct = 0;
    int n = 0;
    LibsvmParser parser = new LibsvmParser();
    for (String line : java.nio.file.Files.readAllLines(LocalConf.sampleData("svmguide1.t"))) {
      if (line.isBlank()) continue;
      org.sodm.data.Row p = parser.parse(line);
      MulticlassModel.Scored s = m.score(p.features());
      double[] prob = s.probabilities();
      assertEquals(1.0, prob[0] + prob[1], 1e-9);
      assertTrue(prob[s.index()] >= prob[1 - s.index()], "the predicted class is the more probable");
      int truth = m.classes().indexOf(p.label());
      sumProb += prob[s.index()];
      logLoss -= Math.log(Math.max(1e-15, prob[truth]));
      if (s.index() == truth) correct++;
      n++;
    }
    double acc = (double) correct / n;
    assertEquals(4000, n);
    assertTrue(acc > 0.93, "accuracy " + acc);
    assertEquals(acc, sumProb / n, 0.02, "mean probability of the predicted class vs accuracy");
    assertTrue(logLoss / n < 0.5 * Math.log(2), "log-loss " + logLoss / n);
  }
}
