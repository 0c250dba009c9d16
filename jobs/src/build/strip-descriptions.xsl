<?xml version="1.0" encoding="UTF-8"?>
<!-- Hadoop's *-default.xml without the <description> of each property (and without comments): the same names, values
     and flags. The local jar carries these: Hadoop parses its defaults afresh for every Configuration it makes (dozens per
     command), and the descriptions were most of the bytes it parsed. -->
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="xml" encoding="UTF-8" indent="no"/>
  <xsl:strip-space elements="configuration property"/>
  <xsl:template match="@*|node()">
    <xsl:copy><xsl:apply-templates select="@*|node()"/></xsl:copy>
  </xsl:template>
  <xsl:template match="description|comment()"/>
</xsl:stylesheet>
