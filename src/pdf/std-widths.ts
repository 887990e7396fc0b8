/**
 * Advance widths (1/1000 em) of the standard PDF fonts, by unicode code point, from their Adobe AFM
 * metrics (as pdf.js carries them: metrics.js, glyphlist.js). A PDF may use Helvetica or Times
 * without embedding it or giving /Widths; pdf.js then measures glyphs with these metrics, while
 * PDFium measures its substitute font, whose advances differ for a few glyphs ('/', '`' ...).
 * The PDFium engine measures such glyphs with these tables so that its runs match pdf.js's.
 * Generated data; each table is 'codepoint:width' pairs in base 36, comma-separated.
 */

const TABLES: Record<string, string> = {
  Helvetica:
    'w:7q,x:7q,y:9v,z:fg,10:fg,11:op,12:ij,13:5b,14:99,15:99,16:at,17:g8,18:7q,19:99,1a:7q,1b:7q,1c:fg,1d:fg,1e:fg,1f:fg,1g:fg,1h:fg,1i:fg,1j:fg,1k:fg,1l:fg,1m:7q,1n:7q,1o:g8,1p:g8,1q:g8,1r:fg,1s:s7,1t:ij,1u:ij,1v:k2,1w:k2,1x:ij,1y:gz,1z:lm,20:k2,21:7q,22:dw,23:ij,24:fg,25:n5,26:k2,27:lm,28:ij,29:lm,2a:k2,2b:ij,2c:gz,2d:k2,2e:ij,2f:q8,2g:ij,2h:ij,2i:gz,2j:7q,2k:7q,2l:7q,2m:d1,2n:fg,2o:99,2p:fg,2q:fg,2r:dw,2s:fg,2t:fg,2u:7q,2v:fg,2w:fg,2x:66,2y:66,2z:dw,30:66,31:n5,32:fg,33:fg,34:fg,35:fg,36:99,37:dw,38:7q,39:fg,3a:dw,3b:k2,3c:dw,3d:dw,3e:dw,3f:9a,3g:78,3h:9a,3i:g8,4h:99,4i:fg,4j:fg,4k:fg,4l:fg,4m:78,4n:fg,4o:99,4p:kh,4q:aa,4r:fg,4s:g8,4u:kh,4v:99,4w:b4,4x:g8,4y:99,4z:99,50:99,51:fg,52:ex,53:7q,54:99,55:99,56:a5,57:fg,58:n6,59:n6,5a:n6,5b:gz,5c:ij,5d:ij,5e:ij,5f:ij,5g:ij,5h:ij,5i:rs,5j:k2,5k:ij,5l:ij,5m:ij,5n:ij,5o:7q,5p:7q,5q:7q,5r:7q,5s:k2,5t:k2,5u:lm,5v:lm,5w:lm,5x:lm,5y:lm,5z:g8,60:lm,61:k2,62:k2,63:k2,64:k2,65:ij,66:ij,67:gz,68:fg,69:fg,6a:fg,6b:fg,6c:fg,6d:fg,6e:op,6f:dw,6g:fg,6h:fg,6i:fg,6j:fg,6k:7q,6l:7q,6m:7q,6n:7q,6o:fg,6p:fg,6q:fg,6r:fg,6s:fg,6t:fg,6u:fg,6v:g8,6w:gz,6x:fg,6y:fg,6z:fg,70:fg,71:dw,72:fg,73:dw,74:ij,75:fg,76:ij,77:fg,78:ij,79:fg,7a:k2,7b:dw,7g:k2,7h:dw,7i:k2,7j:hv,7k:k2,7l:fg,7m:ij,7n:fg,7q:ij,7r:fg,7s:ij,7t:fg,7u:ij,7v:fg,7y:lm,7z:fg,82:lm,83:fg,8a:7q,8b:7q,8e:7q,8f:66,8g:7q,8h:7q,8m:ij,8n:dw,8p:fg,8q:66,8r:fg,8s:66,8t:fg,8u:8b,8x:fg,8y:66,8z:k2,90:fg,91:k2,92:fg,93:k2,94:fg,98:lm,99:fg,9c:lm,9d:fg,9e:rs,9f:q8,9g:k2,9h:99,9i:k2,9j:99,9k:k2,9l:99,9m:ij,9n:dw,9q:ij,9r:dw,9s:ij,9t:dw,9u:gz,9v:7q,9w:gz,9x:8t,a2:k2,a3:fg,a6:k2,a7:fg,a8:k2,a9:fg,aa:k2,ab:fg,ag:ij,ah:gz,ai:dw,aj:gz,ak:dw,al:gz,am:dw,b6:fg,ew:ij,ex:dw,jq:99,jr:99,k8:99,k9:99,ka:99,kb:99,kc:99,kd:99,6c3:fg,6c4:rs,6c8:66,6c9:66,6ca:66,6cc:99,6cd:99,6ce:99,6cg:fg,6ch:fg,6ci:9q,6cm:rs,6cw:rs,6d5:99,6d6:99,6dg:4n,6gc:fg,6jm:rs,6pu:d8,6py:h0,6q9:go,6qa:g8,6qi:cl,6sg:f9,6sk:f9,6sl:f9,7gq:d3,1cqr:6y,1dkx:dw,1dky:dw',
  'Helvetica-Bold':
    'w:7q,x:99,y:d6,z:fg,10:fg,11:op,12:k2,13:6m,14:99,15:99,16:at,17:g8,18:7q,19:99,1a:7q,1b:7q,1c:fg,1d:fg,1e:fg,1f:fg,1g:fg,1h:fg,1i:fg,1j:fg,1k:fg,1l:fg,1m:99,1n:99,1o:g8,1p:g8,1q:g8,1r:gz,1s:r3,1t:k2,1u:k2,1v:k2,1w:k2,1x:ij,1y:gz,1z:lm,20:k2,21:7q,22:fg,23:k2,24:gz,25:n5,26:k2,27:lm,28:ij,29:lm,2a:k2,2b:ij,2c:gz,2d:k2,2e:ij,2f:q8,2g:ij,2h:ij,2i:gz,2j:99,2k:7q,2l:99,2m:g8,2n:fg,2o:99,2p:fg,2q:gz,2r:fg,2s:gz,2t:fg,2u:99,2v:gz,2w:gz,2x:7q,2y:7q,2z:fg,30:7q,31:op,32:gz,33:gz,34:gz,35:gz,36:at,37:fg,38:99,39:gz,3a:fg,3b:lm,3c:fg,3d:fg,3e:dw,3f:at,3g:7s,3h:at,3i:g8,4h:99,4i:fg,4j:fg,4k:fg,4l:fg,4m:7s,4n:fg,4o:99,4p:kh,4q:aa,4r:fg,4s:g8,4u:kh,4v:99,4w:b4,4x:g8,4y:99,4z:99,50:99,51:gz,52:fg,53:7q,54:99,55:99,56:a5,57:fg,58:n6,59:n6,5a:n6,5b:gz,5c:k2,5d:k2,5e:k2,5f:k2,5g:k2,5h:k2,5i:rs,5j:k2,5k:ij,5l:ij,5m:ij,5n:ij,5o:7q,5p:7q,5q:7q,5r:7q,5s:k2,5t:k2,5u:lm,5v:lm,5w:lm,5x:lm,5y:lm,5z:g8,60:lm,61:k2,62:k2,63:k2,64:k2,65:ij,66:ij,67:gz,68:fg,69:fg,6a:fg,6b:fg,6c:fg,6d:fg,6e:op,6f:fg,6g:fg,6h:fg,6i:fg,6j:fg,6k:7q,6l:7q,6m:7q,6n:7q,6o:gz,6p:gz,6q:gz,6r:gz,6s:gz,6t:gz,6u:gz,6v:g8,6w:gz,6x:gz,6y:gz,6z:gz,70:gz,71:fg,72:gz,73:fg,74:k2,75:fg,76:k2,77:fg,78:k2,79:fg,7a:k2,7b:fg,7g:k2,7h:fg,7i:k2,7j:kn,7k:k2,7l:gz,7m:ij,7n:fg,7q:ij,7r:fg,7s:ij,7t:fg,7u:ij,7v:fg,7y:lm,7z:gz,82:lm,83:gz,8a:7q,8b:7q,8e:7q,8f:7q,8g:7q,8h:7q,8m:k2,8n:fg,8p:gz,8q:7q,8r:gz,8s:7q,8t:gz,8u:b4,8x:gz,8y:7q,8z:k2,90:gz,91:k2,92:gz,93:k2,94:gz,98:lm,99:gz,9c:lm,9d:gz,9e:rs,9f:q8,9g:k2,9h:at,9i:k2,9j:at,9k:k2,9l:at,9m:ij,9n:fg,9q:ij,9r:fg,9s:ij,9t:fg,9u:gz,9v:99,9w:gz,9x:at,a2:k2,a3:gz,a6:k2,a7:gz,a8:k2,a9:gz,aa:k2,ab:gz,ag:ij,ah:gz,ai:dw,aj:gz,ak:dw,al:gz,am:dw,b6:fg,ew:ij,ex:fg,jq:99,jr:99,k8:99,k9:99,ka:99,kb:99,kc:99,kd:99,6c3:fg,6c4:rs,6c8:7q,6c9:7q,6ca:7q,6cc:dw,6cd:dw,6ce:dw,6cg:fg,6ch:fg,6ci:9q,6cm:rs,6cw:rs,6d5:99,6d6:99,6dg:4n,6gc:fg,6jm:rs,6pu:dq,6py:h0,6q9:go,6qa:g8,6qi:f9,6sg:f9,6sk:f9,6sl:f9,7gq:dq,1cqr:6y,1dkx:gz,1dky:gz',
  'Times-Roman':
    'w:6y,x:99,y:bc,z:dw,10:dw,11:n5,12:lm,13:50,14:99,15:99,16:dw,17:fo,18:6y,19:99,1a:6y,1b:7q,1c:dw,1d:dw,1e:dw,1f:dw,1g:dw,1h:dw,1i:dw,1j:dw,1k:dw,1l:dw,1m:7q,1n:7q,1o:fo,1p:fo,1q:fo,1r:cc,1s:pl,1t:k2,1u:ij,1v:ij,1w:k2,1x:gz,1y:fg,1z:k2,20:k2,21:99,22:at,23:k2,24:gz,25:op,26:k2,27:k2,28:fg,29:k2,2a:ij,2b:fg,2c:gz,2d:k2,2e:k2,2f:q8,2g:k2,2h:k2,2i:gz,2j:99,2k:7q,2l:99,2m:d1,2n:dw,2o:99,2p:cc,2q:dw,2r:cc,2s:dw,2t:cc,2u:99,2v:dw,2w:dw,2x:7q,2y:7q,2z:dw,30:7q,31:lm,32:dw,33:dw,34:dw,35:dw,36:99,37:at,38:7q,39:dw,3a:dw,3b:k2,3c:dw,3d:dw,3e:cc,3f:dc,3g:5k,3h:dc,3i:f1,4h:99,4i:dw,4j:dw,4k:dw,4l:dw,4m:5k,4n:dw,4o:99,4p:l4,4q:7o,4r:dw,4s:fo,4u:l4,4v:99,4w:b4,4x:fo,4y:8c,4z:8c,50:99,51:dw,52:cl,53:6y,54:99,55:8c,56:8m,57:dw,58:ku,59:ku,5a:ku,5b:cc,5c:k2,5d:k2,5e:k2,5f:k2,5g:k2,5h:k2,5i:op,5j:ij,5k:gz,5l:gz,5m:gz,5n:gz,5o:99,5p:99,5q:99,5r:99,5s:k2,5t:k2,5u:k2,5v:k2,5w:k2,5x:k2,5y:k2,5z:fo,60:k2,61:k2,62:k2,63:k2,64:k2,65:k2,66:fg,67:dw,68:cc,69:cc,6a:cc,6b:cc,6c:cc,6d:cc,6e:ij,6f:cc,6g:cc,6h:cc,6i:cc,6j:cc,6k:7q,6l:7q,6m:7q,6n:7q,6o:dw,6p:dw,6q:dw,6r:dw,6s:dw,6t:dw,6u:dw,6v:fo,6w:dw,6x:dw,6y:dw,6z:dw,70:dw,71:dw,72:dw,73:dw,74:k2,75:cc,76:k2,77:cc,78:k2,79:cc,7a:ij,7b:cc,7g:ij,7h:cc,7i:k2,7j:gc,7k:k2,7l:dw,7m:gz,7n:cc,7q:gz,7r:cc,7s:gz,7t:cc,7u:gz,7v:cc,7y:k2,7z:dw,82:k2,83:dw,8a:99,8b:7q,8e:99,8f:7q,8g:99,8h:7q,8m:k2,8n:dw,8p:gz,8q:7q,8r:gz,8s:7q,8t:gz,8u:9k,8x:gz,8y:7q,8z:k2,90:dw,91:k2,92:dw,93:k2,94:dw,98:k2,99:dw,9c:k2,9d:dw,9e:op,9f:k2,9g:ij,9h:99,9i:ij,9j:99,9k:ij,9l:99,9m:fg,9n:at,9q:fg,9r:at,9s:fg,9t:at,9u:gz,9v:7q,9w:gz,9x:92,a2:k2,a3:dw,a6:k2,a7:dw,a8:k2,a9:dw,aa:k2,ab:dw,ag:k2,ah:gz,ai:cc,aj:gz,ak:cc,al:gz,am:cc,b6:dw,ew:fg,ex:at,jq:99,jr:99,k8:99,k9:99,ka:99,kb:99,kc:99,kd:99,6c3:dw,6c4:rs,6c8:99,6c9:99,6ca:99,6cc:cc,6cd:cc,6ce:cc,6cg:dw,6ch:dw,6ci:9q,6cm:rs,6cw:rs,6d5:99,6d6:99,6dg:4n,6gc:dw,6jm:r8,6pu:d8,6py:h0,6q9:go,6qa:fo,6qi:cl,6sg:f9,6sk:f9,6sl:f9,7gq:d3,1cqr:6y,1dkx:fg,1dky:fg',
  'Times-Bold':
    'w:6y,x:99,y:ff,z:dw,10:dw,11:rs,12:n5,13:7q,14:99,15:99,16:dw,17:fu,18:6y,19:99,1a:6y,1b:7q,1c:dw,1d:dw,1e:dw,1f:dw,1g:dw,1h:dw,1i:dw,1j:dw,1k:dw,1l:dw,1m:99,1n:99,1o:fu,1p:fu,1q:fu,1r:dw,1s:pu,1t:k2,1u:ij,1v:k2,1w:k2,1x:ij,1y:gz,1z:lm,20:lm,21:at,22:dw,23:lm,24:ij,25:q8,26:k2,27:lm,28:gz,29:lm,2a:k2,2b:fg,2c:ij,2d:k2,2e:k2,2f:rs,2g:k2,2h:k2,2i:ij,2j:99,2k:7q,2l:99,2m:g5,2n:dw,2o:99,2p:dw,2q:fg,2r:cc,2s:fg,2t:cc,2u:99,2v:dw,2w:fg,2x:7q,2y:99,2z:fg,30:7q,31:n5,32:fg,33:dw,34:fg,35:fg,36:cc,37:at,38:99,39:fg,3a:dw,3b:k2,3c:dw,3d:dw,3e:cc,3f:ay,3g:64,3h:ay,3i:eg,4h:99,4i:dw,4j:dw,4k:dw,4l:dw,4m:64,4n:dw,4o:99,4p:kr,4q:8c,4r:dw,4s:fu,4u:kr,4v:99,4w:b4,4x:fu,4y:8c,4z:8c,50:99,51:fg,52:f0,53:6y,54:99,55:8c,56:96,57:dw,58:ku,59:ku,5a:ku,5b:dw,5c:k2,5d:k2,5e:k2,5f:k2,5g:k2,5h:k2,5i:rs,5j:k2,5k:ij,5l:ij,5m:ij,5n:ij,5o:at,5p:at,5q:at,5r:at,5s:k2,5t:k2,5u:lm,5v:lm,5w:lm,5x:lm,5y:lm,5z:fu,60:lm,61:k2,62:k2,63:k2,64:k2,65:k2,66:gz,67:fg,68:dw,69:dw,6a:dw,6b:dw,6c:dw,6d:dw,6e:k2,6f:cc,6g:cc,6h:cc,6i:cc,6j:cc,6k:7q,6l:7q,6m:7q,6n:7q,6o:dw,6p:fg,6q:dw,6r:dw,6s:dw,6t:dw,6u:dw,6v:fu,6w:dw,6x:fg,6y:fg,6z:fg,70:fg,71:dw,72:fg,73:dw,74:k2,75:dw,76:k2,77:dw,78:k2,79:dw,7a:k2,7b:cc,7g:k2,7h:cc,7i:k2,7j:io,7k:k2,7l:fg,7m:ij,7n:cc,7q:ij,7r:cc,7s:ij,7t:cc,7u:ij,7v:cc,7y:lm,7z:dw,82:lm,83:dw,8a:at,8b:7q,8e:at,8f:7q,8g:at,8h:7q,8m:lm,8n:fg,8p:ij,8q:7q,8r:ij,8s:7q,8t:ij,8u:ay,8x:ij,8y:7q,8z:k2,90:fg,91:k2,92:fg,93:k2,94:fg,98:lm,99:dw,9c:lm,9d:dw,9e:rs,9f:k2,9g:k2,9h:cc,9i:k2,9j:cc,9k:k2,9l:cc,9m:fg,9n:at,9q:fg,9r:at,9s:fg,9t:at,9u:ij,9v:99,9w:ij,9x:bk,a2:k2,a3:fg,a6:k2,a7:fg,a8:k2,a9:fg,aa:k2,ab:fg,ag:k2,ah:ij,ai:cc,aj:ij,ak:cc,al:ij,am:cc,b6:dw,ew:fg,ex:at,jq:99,jr:99,k8:99,k9:99,ka:99,kb:99,kc:99,kd:99,6c3:dw,6c4:rs,6c8:99,6c9:99,6ca:99,6cc:dw,6cd:dw,6ce:dw,6cg:dw,6ch:dw,6ci:9q,6cm:rs,6cw:rs,6d5:99,6d6:99,6dg:4n,6gc:dw,6jm:rs,6pu:dq,6py:h0,6q9:go,6qa:fu,6qi:f9,6sg:f9,6sk:f9,6sl:f9,7gq:dq,1cqr:6y,1dkx:fg,1dky:fg',
  'Times-Italic':
    'w:6y,x:99,y:bo,z:dw,10:dw,11:n5,12:lm,13:5y,14:99,15:99,16:dw,17:ir,18:6y,19:99,1a:6y,1b:7q,1c:dw,1d:dw,1e:dw,1f:dw,1g:dw,1h:dw,1i:dw,1j:dw,1k:dw,1l:dw,1m:99,1n:99,1o:ir,1p:ir,1q:ir,1r:dw,1s:pk,1t:gz,1u:gz,1v:ij,1w:k2,1x:gz,1y:gz,1z:k2,20:k2,21:99,22:cc,23:ij,24:fg,25:n5,26:ij,27:k2,28:gz,29:k2,2a:gz,2b:dw,2c:fg,2d:k2,2e:gz,2f:n5,2g:gz,2h:fg,2i:fg,2j:at,2k:7q,2l:at,2m:bq,2n:dw,2o:99,2p:dw,2q:dw,2r:cc,2s:dw,2t:cc,2u:7q,2v:dw,2w:dw,2x:7q,2y:7q,2z:cc,30:7q,31:k2,32:dw,33:dw,34:dw,35:dw,36:at,37:at,38:7q,39:dw,3a:cc,3b:ij,3c:cc,3d:cc,3e:at,3f:b4,3g:7n,3h:b4,3i:f1,4h:at,4i:dw,4j:dw,4k:dw,4l:dw,4m:7n,4n:dw,4o:99,4p:l4,4q:7o,4r:dw,4s:ir,4u:l4,4v:99,4w:b4,4x:ir,4y:8c,4z:8c,50:99,51:dw,52:ej,53:6y,54:99,55:8c,56:8m,57:dw,58:ku,59:ku,5a:ku,5b:dw,5c:gz,5d:gz,5e:gz,5f:gz,5g:gz,5h:gz,5i:op,5j:ij,5k:gz,5l:gz,5m:gz,5n:gz,5o:99,5p:99,5q:99,5r:99,5s:k2,5t:ij,5u:k2,5v:k2,5w:k2,5x:k2,5y:k2,5z:ir,60:k2,61:k2,62:k2,63:k2,64:k2,65:fg,66:gz,67:dw,68:dw,69:dw,6a:dw,6b:dw,6c:dw,6d:dw,6e:ij,6f:cc,6g:cc,6h:cc,6i:cc,6j:cc,6k:7q,6l:7q,6m:7q,6n:7q,6o:dw,6p:dw,6q:dw,6r:dw,6s:dw,6t:dw,6u:dw,6v:ir,6w:dw,6x:dw,6y:dw,6z:dw,70:dw,71:cc,72:dw,73:cc,74:gz,75:dw,76:gz,77:dw,78:gz,79:dw,7a:ij,7b:cc,7g:ij,7h:cc,7i:k2,7j:f4,7k:k2,7l:dw,7m:gz,7n:cc,7q:gz,7r:cc,7s:gz,7t:cc,7u:gz,7v:cc,7y:k2,7z:dw,82:k2,83:dw,8a:99,8b:7q,8e:99,8f:7q,8g:99,8h:7q,8m:ij,8n:cc,8p:fg,8q:7q,8r:fg,8s:7q,8t:gz,8u:8c,8x:fg,8y:7q,8z:ij,90:dw,91:ij,92:dw,93:ij,94:dw,98:k2,99:dw,9c:k2,9d:dw,9e:q8,9f:ij,9g:gz,9h:at,9i:gz,9j:at,9k:gz,9l:at,9m:dw,9n:at,9q:dw,9r:at,9s:dw,9t:at,9u:fg,9v:7q,9w:fg,9x:8c,a2:k2,a3:dw,a6:k2,a7:dw,a8:k2,a9:dw,aa:k2,ab:dw,ag:fg,ah:fg,ai:at,aj:fg,ak:at,al:fg,am:at,b6:dw,ew:dw,ex:at,jq:99,jr:99,k8:99,k9:99,ka:99,kb:99,kc:99,kd:99,6c3:dw,6c4:op,6c8:99,6c9:99,6ca:99,6cc:fg,6cd:fg,6ce:fg,6cg:dw,6ch:dw,6ci:9q,6cm:op,6cw:rs,6d5:99,6d6:99,6dg:4n,6gc:dw,6jm:r8,6pu:d8,6py:h0,6q9:go,6qa:ir,6qi:cl,6sg:f9,6sk:f9,6sl:f9,7gq:d3,1cqr:6y,1dkx:dw,1dky:dw',
  'Times-BoldItalic':
    'w:6y,x:at,y:ff,z:dw,10:dw,11:n5,12:lm,13:7q,14:99,15:99,16:dw,17:fu,18:6y,19:99,1a:6y,1b:7q,1c:dw,1d:dw,1e:dw,1f:dw,1g:dw,1h:dw,1i:dw,1j:dw,1k:dw,1l:dw,1m:99,1n:99,1o:fu,1p:fu,1q:fu,1r:dw,1s:n4,1t:ij,1u:ij,1v:ij,1w:k2,1x:ij,1y:ij,1z:k2,20:lm,21:at,22:dw,23:ij,24:gz,25:op,26:k2,27:k2,28:gz,29:k2,2a:ij,2b:fg,2c:gz,2d:k2,2e:ij,2f:op,2g:ij,2h:gz,2i:gz,2j:99,2k:7q,2l:99,2m:fu,2n:dw,2o:99,2p:dw,2q:dw,2r:cc,2s:dw,2t:cc,2u:99,2v:dw,2w:fg,2x:7q,2y:7q,2z:dw,30:7q,31:lm,32:fg,33:dw,34:dw,35:dw,36:at,37:at,38:7q,39:fg,3a:cc,3b:ij,3c:dw,3d:cc,3e:at,3f:9o,3g:64,3h:9o,3i:fu,4h:at,4i:dw,4j:dw,4k:dw,4l:dw,4m:64,4n:dw,4o:99,4p:kr,4q:7e,4r:dw,4s:gu,4u:kr,4v:99,4w:b4,4x:fu,4y:8c,4z:8c,50:99,51:g0,52:dw,53:6y,54:99,55:8c,56:8c,57:dw,58:ku,59:ku,5a:ku,5b:dw,5c:ij,5d:ij,5e:ij,5f:ij,5g:ij,5h:ij,5i:q8,5j:ij,5k:ij,5l:ij,5m:ij,5n:ij,5o:at,5p:at,5q:at,5r:at,5s:k2,5t:k2,5u:k2,5v:k2,5w:k2,5x:k2,5y:k2,5z:fu,60:k2,61:k2,62:k2,63:k2,64:k2,65:gz,66:gz,67:dw,68:dw,69:dw,6a:dw,6b:dw,6c:dw,6d:dw,6e:k2,6f:cc,6g:cc,6h:cc,6i:cc,6j:cc,6k:7q,6l:7q,6m:7q,6n:7q,6o:dw,6p:fg,6q:dw,6r:dw,6s:dw,6t:dw,6u:dw,6v:fu,6w:dw,6x:fg,6y:fg,6z:fg,70:fg,71:cc,72:dw,73:cc,74:ij,75:dw,76:ij,77:dw,78:ij,79:dw,7a:ij,7b:cc,7g:ij,7h:cc,7i:k2,7j:gw,7k:k2,7l:dw,7m:ij,7n:cc,7q:ij,7r:cc,7s:ij,7t:cc,7u:ij,7v:cc,7y:k2,7z:dw,82:k2,83:dw,8a:at,8b:7q,8e:at,8f:7q,8g:at,8h:7q,8m:ij,8n:dw,8p:gz,8q:7q,8r:gz,8s:7q,8t:gz,8u:am,8x:gz,8y:7q,8z:k2,90:fg,91:k2,92:fg,93:k2,94:fg,98:k2,99:dw,9c:k2,9d:dw,9e:q8,9f:k2,9g:ij,9h:at,9i:ij,9j:at,9k:ij,9l:at,9m:fg,9n:at,9q:fg,9r:at,9s:fg,9t:at,9u:gz,9v:7q,9w:gz,9x:a6,a2:k2,a3:fg,a6:k2,a7:fg,a8:k2,a9:fg,aa:k2,ab:fg,ag:gz,ah:gz,ai:at,aj:gz,ak:at,al:gz,am:at,b6:dw,ew:fg,ex:at,jq:99,jr:99,k8:99,k9:99,ka:99,kb:99,kc:99,kd:99,6c3:dw,6c4:rs,6c8:99,6c9:99,6ca:99,6cc:dw,6cd:dw,6ce:dw,6cg:dw,6ch:dw,6ci:9q,6cm:rs,6cw:rs,6d5:99,6d6:99,6dg:4n,6gc:dw,6jm:rs,6pu:dq,6py:h0,6q9:go,6qa:gu,6qi:f9,6sg:f9,6sk:f9,6sl:f9,7gq:dq,1cqr:6y,1dkx:fg,1dky:fg',
};

/** Other names of the standard fonts (pdf.js getStdFontMap). */
const ALIASES: Record<string, string> = {
  ArialNarrow: 'Helvetica',
  'ArialNarrow-Bold': 'Helvetica-Bold',
  'ArialNarrow-BoldItalic': 'Helvetica-BoldOblique',
  'ArialNarrow-Italic': 'Helvetica-Oblique',
  ArialBlack: 'Helvetica',
  'ArialBlack-Bold': 'Helvetica-Bold',
  'ArialBlack-BoldItalic': 'Helvetica-BoldOblique',
  'ArialBlack-Italic': 'Helvetica-Oblique',
  'Arial-Black': 'Helvetica',
  'Arial-Black-Bold': 'Helvetica-Bold',
  'Arial-Black-BoldItalic': 'Helvetica-BoldOblique',
  'Arial-Black-Italic': 'Helvetica-Oblique',
  Arial: 'Helvetica',
  'Arial-Bold': 'Helvetica-Bold',
  'Arial-BoldItalic': 'Helvetica-BoldOblique',
  'Arial-Italic': 'Helvetica-Oblique',
  ArialMT: 'Helvetica',
  'Arial-BoldItalicMT': 'Helvetica-BoldOblique',
  'Arial-BoldMT': 'Helvetica-Bold',
  'Arial-ItalicMT': 'Helvetica-Oblique',
  'Arial-BoldItalicMT-BoldItalic': 'Helvetica-BoldOblique',
  'Arial-BoldMT-Bold': 'Helvetica-Bold',
  'Arial-ItalicMT-Italic': 'Helvetica-Oblique',
  ArialUnicodeMS: 'Helvetica',
  'ArialUnicodeMS-Bold': 'Helvetica-Bold',
  'ArialUnicodeMS-BoldItalic': 'Helvetica-BoldOblique',
  'ArialUnicodeMS-Italic': 'Helvetica-Oblique',
  'Courier-BoldItalic': 'Courier-BoldOblique',
  'Courier-Italic': 'Courier-Oblique',
  CourierNew: 'Courier',
  'CourierNew-Bold': 'Courier-Bold',
  'CourierNew-BoldItalic': 'Courier-BoldOblique',
  'CourierNew-Italic': 'Courier-Oblique',
  'CourierNewPS-BoldItalicMT': 'Courier-BoldOblique',
  'CourierNewPS-BoldMT': 'Courier-Bold',
  'CourierNewPS-ItalicMT': 'Courier-Oblique',
  CourierNewPSMT: 'Courier',
  'Helvetica-BoldItalic': 'Helvetica-BoldOblique',
  'Helvetica-Italic': 'Helvetica-Oblique',
  'HelveticaLTStd-Bold': 'Helvetica-Bold',
  'Symbol-Bold': 'Symbol',
  'Symbol-BoldItalic': 'Symbol',
  'Symbol-Italic': 'Symbol',
  TimesNewRoman: 'Times-Roman',
  'TimesNewRoman-Bold': 'Times-Bold',
  'TimesNewRoman-BoldItalic': 'Times-BoldItalic',
  'TimesNewRoman-Italic': 'Times-Italic',
  TimesNewRomanPS: 'Times-Roman',
  'TimesNewRomanPS-Bold': 'Times-Bold',
  'TimesNewRomanPS-BoldItalic': 'Times-BoldItalic',
  'TimesNewRomanPS-BoldItalicMT': 'Times-BoldItalic',
  'TimesNewRomanPS-BoldMT': 'Times-Bold',
  'TimesNewRomanPS-Italic': 'Times-Italic',
  'TimesNewRomanPS-ItalicMT': 'Times-Italic',
  TimesNewRomanPSMT: 'Times-Roman',
  'TimesNewRomanPSMT-Bold': 'Times-Bold',
  'TimesNewRomanPSMT-BoldItalic': 'Times-BoldItalic',
  'TimesNewRomanPSMT-Italic': 'Times-Italic',
};

/**
 * A table of widths by code point, each stored plus one (0: the font has no width for it), read
 * per glyph: an array index, not a map lookup (a fifth of the PDFium run builder's own time was
 * the lookup). Its pages are touched only where code points have widths.
 */
export type WidthTable = Uint16Array;

/** The width of `cp` in `table` (1/1000 em), or undefined when the font has none for it. */
export function widthOf(table: WidthTable, cp: number): number | undefined {
  const w = cp < table.length ? table[cp] : 0;
  return w ? w - 1 : undefined;
}

const cache = new Map<string, WidthTable | number | null>();

/**
 * The AFM widths of a standard font by its base name (an alias or an -Oblique / -Italic style of
 * one included): a table, or a fixed width (Courier), or null for any other font.
 */
export function standardWidths(baseName: string): WidthTable | number | null {
  let hit = cache.get(baseName);
  if (hit !== undefined) return hit;
  const std = ALIASES[baseName] ?? baseName;
  if (std.startsWith('Courier')) hit = 600;
  else {
    const table = TABLES[std.replace(/-Oblique$/, '').replace(/-BoldOblique$/, '-Bold')];
    if (table === undefined) hit = null;
    else {
      const pairs = table.split(',').map((pair) => pair.split(':').map((v) => parseInt(v, 36)));
      hit = new Uint16Array(Math.max(...pairs.map(([u]) => u)) + 1);
      for (const [u, w] of pairs) hit[u] = w + 1;
    }
  }
  cache.set(baseName, hit);
  return hit;
}
