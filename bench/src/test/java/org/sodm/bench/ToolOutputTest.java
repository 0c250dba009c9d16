package org.sodm.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ToolOutputTest {
  static final String SVM_TRAIN = "*\noptimization finished, #iter = 372\nnu = 0.145246\n"
      + "obj = -757.111425, rho = 1.910610\nnSV = 455, nBSV = 444\nTotal nSV = 455\n";

  static final String SODM_TRAIN = String.join("\n",
      "09:50:00 INFO  IngestJob: ingest: 3089 rows, 4 features, 12316 non-zeros, labels [0, 1], 0 bad skipped, 2.3 s",
      "sodm train: ingest       3,089 rows, 4 features, labels [0=1089, 1=2000]                            2.4 s  (total 2.9 s)",
      "sodm train: validation   4,000 rows, 4 features, labels [0=2000, 1=2000]                            0.9 s  (total 3.8 s)",
      "sodm train: landmarks    64 landmarks (strata), kernel rbf(gamma=2.0)                               1.6 s  (total 5.4 s)",
      "sodm train: level 2        16 blocks  obj     -1444.43  viol 9.98e-04  SV     990  acc 94.50%       2.8 s  (total 8.7 s)",
      "sodm train: level 1*        4 blocks  obj     -1016.76  viol 9.99e-04  SV     657                   2.6 s  (total 11.5 s)",
      "sodm train: model        4 block(s), 657 support vectors -> file:/tmp/m/model.avro     0.2 s  (total 11.6 s)",
      "sodm train: done in 11.6 s: file:/tmp/m/model.avro", "");

  @Test
  void parsesSvmTrain() {
    ToolOutput.SvmTrain s = ToolOutput.parseSvmTrain(SVM_TRAIN);
    assertEquals(372L, s.iterations());
    assertEquals(-757.111425, s.objective(), 0);
    assertEquals(1.910610, s.rho(), 0);
    assertEquals(455L, s.nSV());
    assertEquals(444L, s.nBSV());
    assertEquals(455L, s.totalSV());
  }

  @Test
  void missingFiguresAreNull() {
    ToolOutput.SvmTrain s = ToolOutput.parseSvmTrain("Can't open input file x\n");
    assertNull(s.objective());
    assertNull(s.totalSV());
    assertNull(ToolOutput.parsePredictAccuracy("Can't open model file"));
  }

  @Test
  void parsesSvmPredict() {
    assertEquals(3859.0 / 4000, ToolOutput.parsePredictAccuracy("Accuracy = 96.475% (3859/4000) (classification)\n"), 1e-15);
  }

  @Test
  void parsesSodmLevels() {
    List<ToolOutput.Level> ls = ToolOutput.parseSodmLevels(SODM_TRAIN);
    assertEquals(2, ls.size());
    assertEquals(new ToolOutput.Level(2, 16, 0.945, 8.7), ls.get(0));
    assertEquals(1, ls.get(1).level());
    assertEquals(4, ls.get(1).blocks());
    assertNull(ls.get(1).accuracy()); // a resumed level without validation
    assertEquals(11.5, ls.get(1).totalSeconds(), 0);
    assertEquals(11.6, ToolOutput.parseSodmDone(SODM_TRAIN), 0);
    // the current line: estimated memory, and the seconds the validation scoring took
    List<ToolOutput.Level> now = ToolOutput.parseSodmLevels("sodm train: level 4       160 blocks  obj      -607022  viol 1.00e-03"
        + "  SV 198,003  mem   29 MB  acc 97.32% (scored in 20.2 s)    24.7 s  (total 48.3 s)\n");
    assertEquals(List.of(new ToolOutput.Level(4, 160, 0.9732, 48.3)), now);
  }

  @Test
  void levelsFromTheReportWhenNoProgressLines() throws Exception {
    ReportFiles.TrainReport report = ReportFiles.parse("{\"levels\": [\n"
        + "{\"level\": 2, \"blocks\": 16, \"objective\": -1444.4, \"wallSeconds\": 1.5, \"validationAccuracy\": 0.945},\n"
        + "{\"level\": 1, \"blocks\": 4, \"objective\": -1016.7, \"wallSeconds\": 2.0, \"validationAccuracy\": null}],\n"
        + "\"blocks\": 4, \"supportVectors\": 657, \"seconds\": 10.0}", ReportFiles.TrainReport.class);
    List<ToolOutput.Level> ls = ToolOutput.levelsFromReport(report);
    assertEquals(2, ls.size());
    assertEquals(8.0, ls.get(0).totalSeconds(), 1e-12);
    assertEquals(10.0, ls.get(1).totalSeconds(), 1e-12);
    assertEquals(0.945, ls.get(0).accuracy(), 0);
    assertNull(ls.get(1).accuracy());
  }

  @Test
  void keyValues() {
    Map<String, String> m = ToolOutput.parseKeyValues("# c\na=1\n\nb = x=y \nnoequals\n");
    assertEquals(Map.of("a", "1", "b", "x=y"), m);
    assertTrue(m.keySet().iterator().next().equals("a"));
  }
}
